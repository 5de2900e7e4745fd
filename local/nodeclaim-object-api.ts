// Where the handlers mirror NodeClaim objects (docs/kubernetes.md, NodeClaim objects) when it is not the simulated
// cluster: the cluster port with those three methods served elsewhere.
import type { NodeClaimObject } from '../shared/api/nodeclaim-object';
import type { ClusterApi } from '../shared/ports';

/** The three NodeClaim-object methods of the cluster port. */
export type NodeClaimObjectApi = Required<
  Pick<ClusterApi, 'listNodeClaimObjects' | 'writeNodeClaimObject' | 'deleteNodeClaimObject'>
>;

/** The cluster port with its NodeClaim-object methods served by `objects`, everything else by `kube`. */
export function withNodeClaimObjects(kube: ClusterApi, objects: NodeClaimObjectApi): ClusterApi {
  const own: Record<string, unknown> = {
    listNodeClaimObjects: () => objects.listNodeClaimObjects(),
    writeNodeClaimObject: (d: NodeClaimObject, c: NodeClaimObject | undefined) => objects.writeNodeClaimObject(d, c),
    deleteNodeClaimObject: (name: string) => objects.deleteNodeClaimObject(name),
  };
  return new Proxy(kube, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && prop in own) return own[prop];
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
