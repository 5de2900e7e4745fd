// Parses Kubernetes REST paths: /api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]] and the same under
// /apis/{group}/{version}. `namespaces` itself is a cluster-scoped resource, so /api/v1/namespaces/{name} is a get.

export interface ResourcePath {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
}

export function parseResourcePath(pathname: string): ResourcePath | undefined {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let group = '';
  let rest: string[];
  if (parts[0] === 'api' && parts[1]) {
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts[1] && parts[2]) {
    group = parts[1];
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  const version = parts[0] === 'api' ? (parts[1] as string) : (parts[2] as string);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  if (!resource) return undefined;
  return { group, version, namespace, resource, name, subresource };
}
