// Counts the pods a run's manifests expand to, before any are made, so `replicas: 1000000000` fails at once with the
// object and field named instead of exhausting the heap (docs/api.md, "Input limits").
import { isObj, type Obj } from './check';

export class PodBudget {
  private used = 0;

  constructor(private readonly limit: number) {}

  /** Adds one object's pods; returns the problem (field path and message) when the run would exceed the limit. */
  add(kind: string, obj: Obj): string | undefined {
    const counted = podsOf(kind, obj);
    if (!counted) return undefined;
    this.used += counted.pods;
    if (this.used <= this.limit) return undefined;
    return `${counted.path}: ${counted.pods} pods would take this run past its limit of ${this.limit} pods (raise it with --max-pods)`;
  }
}

function podsOf(kind: string, obj: Obj): { pods: number; path: string } | undefined {
  const spec = isObj(obj.spec) ? obj.spec : {};
  const int = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
  switch (kind) {
    case 'Pod':
      return { pods: 1, path: 'metadata.name' };
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
      return { pods: int(spec.replicas, 1), path: 'spec.replicas' };
    case 'Job': {
      const parallelism = int(spec.parallelism, 1);
      const completions = spec.completions === undefined ? parallelism : int(spec.completions, parallelism);
      return { pods: Math.min(parallelism, completions), path: 'spec.parallelism' };
    }
    default:
      return undefined;
  }
}
