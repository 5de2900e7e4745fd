// Property-based fuzzing of every parser that reads outside input: manifests, scenarios and queue messages. Whatever
// the input, a parser returns a value or throws ValidationError naming the problem; nothing else escapes it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENTS_DIR } from '../../events';
import { expandPods } from '../../shared/api/expand';
import { emptyManifestSet } from '../../shared/api/manifest-set';
import { parseManifests } from '../../shared/api/parse';
import { ValidationError } from '../../shared/errors';
import { parseControlMessage, parseGcTick, parseInterruptionEvent } from '../../shared/events';
import { parseScenario } from '../../shared/sim/scenario/parse';
import { type Doc, mutatedDoc, oddValue, pathsOf, setPath, toYaml } from './corpus';
import { FUZZ_RUNS, FUZZ_SEED } from './runs';

const params = { numRuns: FUZZ_RUNS, seed: FUZZ_SEED };

/** Returns normally, or throws ValidationError: any other exception is a bug the user would see as a crash. */
function refusesCleanly(run: () => unknown): boolean {
  try {
    run();
    return true;
  } catch (err) {
    if (err instanceof ValidationError) return err.problems.length > 0;
    throw err;
  }
}

async function refusesCleanlyAsync(run: () => Promise<unknown>): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (err) {
    if (err instanceof ValidationError) return err.problems.length > 0;
    throw err;
  }
}

const CONTROL_SAMPLES = [
  'pods-pending.json',
  'node-changed.json',
  'sweep.json',
  'terminate.json',
  'disruption-due.json',
];
const EVENT_SAMPLES = ['spot-interruption.json', 'rebalance-recommendation.json', 'state-change-stopped.json'];
const sample = (file: string): Doc => JSON.parse(readFileSync(join(EVENTS_DIR, file), 'utf8')) as Doc;

const mutatedJson = (files: string[]) =>
  fc
    .constantFrom(...files)
    .chain((file) => {
      const doc = sample(file);
      return fc.tuple(fc.constant(doc), fc.constantFrom(...pathsOf(doc).filter((p) => p.length > 0)), oddValue);
    })
    .map(([doc, path, value]) => JSON.stringify(setPath(doc, path, value)));

describe('parser fuzzing', () => {
  it('manifests: arbitrary text is parsed or refused with a ValidationError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => refusesCleanly(() => parseManifests(text, 'fuzz.yaml'))),
      params,
    );
  });

  it('manifests: one field of a valid object set to anything is parsed and expanded, or refused', () => {
    fc.assert(
      fc.property(fc.array(mutatedDoc, { minLength: 1, maxLength: 3 }), (docs) =>
        refusesCleanly(() => expandPods(parseManifests(toYaml(docs), 'fuzz.yaml'))),
      ),
      params,
    );
  });

  it('scenarios: arbitrary text and odd specs are parsed or refused', async () => {
    const read = async () => emptyManifestSet();
    const spec = fc.record({ until: oddValue, sweepEvery: oddValue, steps: oddValue }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          spec.map((s) => toYaml([scenarioOf(s)])),
        ),
        (text) => refusesCleanlyAsync(() => parseScenario(text, 'fuzz.yaml', read)),
      ),
      params,
    );
  });

  it('queue messages: arbitrary and mutated bodies are parsed or refused', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), mutatedJson(CONTROL_SAMPLES)), (body) =>
        refusesCleanly(() => parseControlMessage(body)),
      ),
      params,
    );
    fc.assert(
      fc.property(fc.oneof(fc.string(), mutatedJson(EVENT_SAMPLES)), (body) =>
        refusesCleanly(() => parseInterruptionEvent(body)),
      ),
      params,
    );
    fc.assert(
      fc.property(fc.oneof(fc.string(), mutatedJson(['gc-tick.json'])), (body) =>
        refusesCleanly(() => parseGcTick(body)),
      ),
      params,
    );
  });

  it('the checker itself catches an escaping TypeError', () => {
    expect(() =>
      refusesCleanly(() => {
        throw new TypeError('boom');
      }),
    ).toThrow(TypeError);
  });
});

function scenarioOf(spec: Record<string, unknown>): Doc {
  return { apiVersion: 'karpless.dev/v1alpha1', kind: 'Scenario', metadata: { name: 'fuzz' }, spec };
}
