// Coverage and fidelity against Karpenter's published instance-type reference (AL2023, no blockDeviceMappings; the
// checked-in table build/sources/reference-us-east-1.tsv): every type it lists is in the embedded snapshot unless the
// price table has no us-east-1 price for it, and each type's karpenter.k8s.aws/* labels and allocatable cpu, memory,
// pods and ephemeral-storage equal Karpenter's. docs/catalog.md, "Sources".
import { describe, expect, it } from 'vitest';
import { parseResource } from '../api/quantity';
import { computeAllocatable } from './allocatable';
import { buildTypes } from './build/generate';
import { readReference } from './build/source-tables';
import { labelsFor } from './labels';
import { loadCatalog } from './load';

const reference = readReference();
const catalog = loadCatalog();
const byName = new Map(catalog.types.map((t) => [t.name, t]));
const compared = reference.filter((r) => byName.has(r.name));
const RESOURCES = ['cpu', 'memory', 'pods', 'ephemeral-storage'];
const OURS = (key: string) => key.startsWith('karpenter.k8s.aws/') || key === 'kubernetes.io/arch';

/** Karpenter's values that differ from the snapshot's, as `type key: ours → Karpenter's`. */
function differences(
  pick: (name: string) => Record<string, string>,
  expected: (r: (typeof reference)[0]) => Record<string, string>,
) {
  const out: string[] = [];
  for (const ref of compared) {
    const ours = pick(ref.name);
    const theirs = expected(ref);
    for (const key of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
      if (ours[key] !== theirs[key]) out.push(`${ref.name} ${key}: ${ours[key]} → ${theirs[key]}`);
    }
  }
  return out;
}

describe("Karpenter's instance-type reference", () => {
  it('lists every type the snapshot leaves out as one without a us-east-1 price', () => {
    const missing = reference.filter((r) => !byName.has(r.name)).map((r) => r.name);
    expect(missing).toEqual(buildTypes().left.map((l) => l.name));
    expect(buildTypes().left.every((l) => l.why === 'no us-east-1 on-demand price')).toBe(true);
    expect(reference.length).toBe(1363);
    expect(compared.length).toBe(1345);
  });

  it("gives every type Karpenter's karpenter.k8s.aws/* and arch labels", () => {
    const labels = (name: string) => {
      const all = labelsFor(byName.get(name) as never, 'us-east-1');
      return Object.fromEntries(Object.entries(all).filter(([k]) => OURS(k)));
    };
    const theirs = (r: (typeof reference)[0]) => Object.fromEntries(Object.entries(r.labels).filter(([k]) => OURS(k)));
    expect(differences(labels, theirs)).toEqual([]);
  });

  it("gives every type Karpenter's allocatable cpu, memory, pods and ephemeral-storage", () => {
    const ours = (name: string) => {
      const { allocatable } = computeAllocatable(byName.get(name) as never);
      return Object.fromEntries(RESOURCES.map((k) => [k, String(allocatable[k])]));
    };
    const theirs = (r: (typeof reference)[0]) =>
      Object.fromEntries(RESOURCES.map((k) => [k, String(parseResource(k, r.resources[k] ?? ''))]));
    expect(differences(ours, theirs)).toEqual([]);
  });
});
