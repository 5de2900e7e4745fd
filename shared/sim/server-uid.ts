// UIDs as the API server stamps them on Karpenter objects the simulator holds: a created object gets a fresh one (or
// keeps the one it came with, from a cluster dump), an updated one keeps its own. A NodePool deleted and created
// again under its name is then another pool, as in a cluster (docs/disruption.md, Deleting a NodePool). Counted,
// not drawn from the cluster's random stream, so adding them moves no other seeded value.

export function serverUids(prefix: string) {
  let created = 0;
  return <T extends { metadata: { uid?: string } }>(object: T, before?: T): T => {
    const uid = before?.metadata.uid ?? object.metadata.uid ?? `${prefix}-${++created}`;
    return object.metadata.uid === uid ? object : { ...object, metadata: { ...object.metadata, uid } };
  };
}
