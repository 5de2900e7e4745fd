// Decision records read from a deployed cluster's table (`karpless explain NAME --table T --cluster C`). A node
// name, an instance id or a providerID is resolved to its claim through the claims `list` returns: every claim in
// flight or failed, and terminated ones for 2 days (TERMINATED_CLAIM_RETENTION_MS); the records stay 30 days.
import type { NodeClaim } from '../../shared/api/nodeclaim';
import type { DecisionSource } from './explain';
import { openTableStore, type TableOptions } from './table-option';

/** Whether the claim is the one behind a node name, an EC2 instance id or a providerID. */
export function claimMatches(claim: NodeClaim, name: string): boolean {
  return claim.nodeName === name || claim.instanceId === name || claim.providerID === name;
}

export async function tableSource(o: TableOptions & { table: string; cluster: string }): Promise<DecisionSource> {
  const store = await openTableStore(o);
  return {
    listDecisions: (claim) => store.listDecisions(claim),
    claimOfNode: async (name) => (await store.list()).find((c) => claimMatches(c, name))?.name,
    claim: (name) => store.get(name),
  };
}
