// The few Kubernetes API calls the adapter makes, with the method names and parameter objects of client-node's
// generated CoreV1Api, AppsV1Api, PolicyV1Api, StorageV1Api and CustomObjectsApi, on the plain REST layer (rest.ts).
// They return the server's JSON as is (the adapter trims it), so no model classes or serializer end up in a bundle.
import { type CallOptions, callOptions } from './request-options';
import { apiPath, type KubeRest } from './rest';

interface ListParams {
  fieldSelector?: string;
  limit?: number;
  _continue?: string;
}

const DEFAULT = callOptions(20_000);

function list(rest: KubeRest, path: string, p: ListParams, o: CallOptions): Promise<unknown> {
  return rest.request({
    method: 'GET',
    path,
    query: { fieldSelector: p.fieldSelector, limit: p.limit, continue: p._continue },
    ...o,
  });
}

export class CoreV1Api {
  constructor(private readonly rest: KubeRest) {}
  listPodForAllNamespaces(p: ListParams, o: CallOptions = DEFAULT) {
    return list(this.rest, apiPath('', 'v1', 'pods'), p, o);
  }
  listNode(p: ListParams, o: CallOptions = DEFAULT) {
    return list(this.rest, apiPath('', 'v1', 'nodes'), p, o);
  }
  listPersistentVolumeClaimForAllNamespaces(p: ListParams, o: CallOptions = DEFAULT) {
    return list(this.rest, apiPath('', 'v1', 'persistentvolumeclaims'), p, o);
  }
  listPersistentVolume(p: ListParams, o: CallOptions = DEFAULT) {
    return list(this.rest, apiPath('', 'v1', 'persistentvolumes'), p, o);
  }
  listNamespace(p: ListParams, o: CallOptions = DEFAULT) {
    return list(this.rest, apiPath('', 'v1', 'namespaces'), p, o);
  }
  readNode(p: { name: string }, o: CallOptions = DEFAULT) {
    return this.rest.request({ method: 'GET', path: apiPath('', 'v1', 'nodes', p.name), ...o });
  }
  patchNode(p: { name: string; body: object; fieldManager?: string }, o: CallOptions = DEFAULT) {
    return this.rest.request({
      method: 'PATCH',
      path: apiPath('', 'v1', 'nodes', p.name),
      query: { fieldManager: p.fieldManager },
      body: p.body,
      ...o,
    });
  }
  deleteNode(p: { name: string }, o: CallOptions = DEFAULT) {
    return this.rest.request({ method: 'DELETE', path: apiPath('', 'v1', 'nodes', p.name), ...o });
  }
  createNamespacedPodBinding(p: { name: string; namespace: string; body: object }, o: CallOptions = DEFAULT) {
    const path = apiPath('', 'v1', 'namespaces', p.namespace, 'pods', p.name, 'binding');
    return this.rest.request({ method: 'POST', path, body: p.body, ...o });
  }
  createNamespacedPodEviction(p: { name: string; namespace: string; body: object }, o: CallOptions = DEFAULT) {
    const path = apiPath('', 'v1', 'namespaces', p.namespace, 'pods', p.name, 'eviction');
    return this.rest.request({ method: 'POST', path, body: p.body, ...o });
  }
  createNamespacedEvent(p: { namespace: string; body: object }, o: CallOptions = DEFAULT) {
    const path = apiPath('', 'v1', 'namespaces', p.namespace, 'events');
    return this.rest.request({ method: 'POST', path, body: p.body, ...o });
  }
}

export class AppsV1Api {
  constructor(private readonly rest: KubeRest) {}
  listDaemonSetForAllNamespaces(p: ListParams, o: CallOptions = DEFAULT) {
    return list(this.rest, apiPath('apps', 'v1', 'daemonsets'), p, o);
  }
}

export class PolicyV1Api {
  constructor(private readonly rest: KubeRest) {}
  listPodDisruptionBudgetForAllNamespaces(p: ListParams, o: CallOptions = DEFAULT) {
    return list(this.rest, apiPath('policy', 'v1', 'poddisruptionbudgets'), p, o);
  }
}

export class StorageV1Api {
  constructor(private readonly rest: KubeRest) {}
  listStorageClass(p: ListParams, o: CallOptions = DEFAULT) {
    return list(this.rest, apiPath('storage.k8s.io', 'v1', 'storageclasses'), p, o);
  }
  listCSINode(p: ListParams, o: CallOptions = DEFAULT) {
    return list(this.rest, apiPath('storage.k8s.io', 'v1', 'csinodes'), p, o);
  }
}

export class CustomObjectsApi {
  constructor(private readonly rest: KubeRest) {}
  listClusterCustomObject(
    p: ListParams & { group: string; version: string; plural: string },
    o: CallOptions = DEFAULT,
  ) {
    return list(this.rest, apiPath(p.group, p.version, p.plural), p, o);
  }
  createClusterCustomObject(
    p: { group: string; version: string; plural: string; body: object; fieldManager?: string },
    o: CallOptions = DEFAULT,
  ) {
    return this.rest.request({
      method: 'POST',
      path: apiPath(p.group, p.version, p.plural),
      query: { fieldManager: p.fieldManager },
      body: p.body,
      ...o,
    });
  }
  patchClusterCustomObject(
    p: { group: string; version: string; plural: string; name: string; body: object; fieldManager?: string },
    o: CallOptions = DEFAULT,
  ) {
    return this.rest.request({
      method: 'PATCH',
      path: apiPath(p.group, p.version, p.plural, p.name),
      query: { fieldManager: p.fieldManager },
      body: p.body,
      ...o,
    });
  }
  deleteClusterCustomObject(
    p: { group: string; version: string; plural: string; name: string },
    o: CallOptions = DEFAULT,
  ) {
    return this.rest.request({ method: 'DELETE', path: apiPath(p.group, p.version, p.plural, p.name), ...o });
  }
  patchClusterCustomObjectStatus(
    p: { group: string; version: string; plural: string; name: string; body: object; fieldManager?: string },
    o: CallOptions = DEFAULT,
  ) {
    return this.rest.request({
      method: 'PATCH',
      path: apiPath(p.group, p.version, p.plural, p.name, 'status'),
      query: { fieldManager: p.fieldManager },
      body: p.body,
      ...o,
    });
  }
}
