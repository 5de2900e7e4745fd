// The `patch` step: a JSON merge patch on a NodePool or EC2NodeClass, checked again as the manifest it becomes.
import { buildManifestSet } from '../../api/build';
import { amiFamilyOf, defaultBlockDeviceMappings } from '../../api/defaults';
import type { EC2NodeClass, NodePool } from '../../api/karpenter';
import { ValidationError } from '../../errors';
import { mergePatch } from './merge-patch';
import type { StepContext } from './step-context';
import type { StepAction } from './types';

export async function patchStep(
  ctx: StepContext,
  action: Extract<StepAction, { type: 'patch' }>,
  now: number,
): Promise<void> {
  const { cluster } = ctx.world;
  const list: (NodePool | EC2NodeClass)[] =
    action.target.kind === 'NodePool' ? await cluster.listNodePools() : await cluster.listNodeClasses();
  const current = list.find((o) => o.metadata.name === action.target.name);
  if (!current) throw new Error(`${action.target.kind} ${action.target.name} not found`);
  const merged = mergePatch(withoutImpliedWeight(current), action.mergePatch) as unknown as Record<string, unknown>;
  const errors: string[] = [];
  const { set } = buildManifestSet([{ file: `${ctx.scenarioFile} patch`, doc: 1, raw: merged }], errors);
  if (errors.length > 0) throw new ValidationError(errors);
  const replaced = action.target.kind === 'NodePool' ? set.nodePools[0] : set.nodeClasses[0];
  if (replaced) cluster.upsert(replaced);
  ctx.batch.notePoolsChanged(now);
}

/** A NodePool without a weight is stored with the implied weight 0, which validation (1-100) would refuse when the
 * patched object is checked again; an EC2NodeClass is stored with the amiFamily its alias implies and that family's
 * default block devices, which would contradict a patched alias (windows2019 → windows2022). Drop what was implied
 * so the patched object reads as the user wrote it. */
function withoutImpliedWeight(o: NodePool | EC2NodeClass): NodePool | EC2NodeClass {
  if (o.kind === 'EC2NodeClass') return withoutImpliedFamily(o);
  if (o.kind !== 'NodePool' || o.spec.weight !== 0) return o;
  const { weight: _implied, ...spec } = o.spec;
  return { ...o, spec } as NodePool;
}

function withoutImpliedFamily(o: EC2NodeClass): EC2NodeClass {
  const implied = amiFamilyOf({ amiSelectorTerms: o.spec.amiSelectorTerms });
  if (!implied || o.spec.amiFamily !== implied) return o;
  const { amiFamily: _family, blockDeviceMappings, ...spec } = o.spec;
  const defaulted = JSON.stringify(blockDeviceMappings) === JSON.stringify(defaultBlockDeviceMappings(implied));
  return { ...o, spec: { ...spec, ...(defaulted ? {} : { blockDeviceMappings }) } };
}
