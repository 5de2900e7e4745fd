// A disruption command as written on its candidate claims, so a later sweep can read it back and move it on.

import { podRef } from '../api/pods';
import type { DisruptionCommand } from '../disruption';

/** The command as kept on its claims: only what validation, launching and termination read back (instance types
 * and pods by name, the record without its detail, which is already in the decision record), so a claim's item
 * stays small. */
export function encodeCommand(command: DisruptionCommand): string {
  const replacements = command.replacements.map((r) => ({
    ...r,
    instanceTypeOptions: r.instanceTypeOptions.map((t) => ({ name: t.name })),
    pods: r.pods.map((p) => ({ metadata: podRef(p) })),
  }));
  return JSON.stringify({ ...command, replacements, record: { ...command.record, detail: {} } });
}

export function decodeCommand(text: string): DisruptionCommand | undefined {
  try {
    const command = JSON.parse(text) as DisruptionCommand;
    return Array.isArray(command.candidates) && Array.isArray(command.replacements) && command.record
      ? command
      : undefined;
  } catch {
    return undefined;
  }
}
