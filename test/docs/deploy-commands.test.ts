// Every `karpless` command docs/deploy.md shows must exist with the flags it shows: each is run with --help, and
// each --flag it uses must be in that help.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../cli/io';
import { main } from '../../cli/main';

const DOC = join(import.meta.dirname, '..', '..', 'docs', 'deploy.md');

/** The text after each `karpless` in code (blocks and inline spans), up to a pipe, a redirect or the span's end. */
function shownCommands(markdown: string): string[] {
  const code: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g))
    code.push(...(block[1] ?? '').replace(/\\\n/g, ' ').split('\n'));
  for (const span of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`]+)`/g)) code.push(span[1] ?? '');
  const out: string[] = [];
  for (const line of code) {
    for (const m of line.matchAll(/(?:^|[\s(])karpless ((?:[^|>#`"$]|"[^"]*"|\$\([^)]*\))+)/g))
      out.push((m[1] ?? '').trim());
  }
  return [...new Set(out)];
}

async function help(path: string[]): Promise<{ code: number; text: string }> {
  const io = bufferIO();
  const code = await main([...path, '--help'], io);
  return { code, text: io.stdout.join('') + io.stderr.join('') };
}

describe('docs/deploy.md commands', () => {
  const commands = shownCommands(readFileSync(DOC, 'utf8'));

  it('finds the commands the guide walks through', () => {
    const heads = commands.map((c) => c.split(/\s+/).slice(0, 2).join(' '));
    for (const expected of [
      'crds',
      'forwarder rbac',
      'forwarder manifest',
      'migrate --check',
      'explain',
      'nodeclaims',
    ]) {
      expect(heads.some((h) => h.startsWith(expected))).toBe(true);
    }
  });

  it.each(commands)('karpless %s parses: the command exists and knows every flag shown', async (command) => {
    // Shell substitutions and quoted values are arguments, not karpless flags.
    const words = command
      .replace(/\$\([^)]*\)/g, 'VALUE')
      .replace(/"[^"]*"/g, 'VALUE')
      .split(/\s+/);
    const path: string[] = [];
    for (const w of words) {
      if (w.startsWith('-') || w.includes('<') || w.includes('.') || w.includes('/') || w === '-') break;
      const next = await help([...path, w]);
      // A word that is not a subcommand is an argument: Commander then prints the parent's help or an error.
      if (next.code !== 0 || !next.text.includes(`Usage: karpless ${[...path, w].join(' ')}`)) break;
      path.push(w);
    }
    expect(path.length).toBeGreaterThan(0);
    const { code, text } = await help(path);
    expect(code).toBe(0);
    for (const flag of words.filter((w) => /^--?[a-z]/.test(w)).map((w) => w.split('=')[0] as string)) {
      expect(text, `${flag} in karpless ${path.join(' ')} --help`).toContain(flag);
    }
  });
});
