// A Kubernetes API outage as the functions see it: while it lasts, every call of their ClusterApi fails as an
// unreachable API server does, and the simulated cluster itself runs on (kubelets, kube-scheduler, the forwarder's
// view). For faults that outlast the queues' retries (docs/disruption.md, Drains that outlive an outage).
import type { ClusterApi } from '../shared/ports';

export class KubeApiOutage {
  private until = Number.NEGATIVE_INFINITY;
  /** Calls refused while the outage lasted. */
  refused = 0;

  constructor(private readonly now: () => number) {}

  /** The API server is unreachable from now for `ms` of virtual time. */
  begin(ms: number): void {
    this.until = this.now() + ms;
  }

  get active(): boolean {
    return this.now() < this.until;
  }

  /** `kube` with every method failing while the outage is active. */
  wrap(kube: ClusterApi): ClusterApi {
    return new Proxy(kube, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (this.active) {
            this.refused++;
            return Promise.reject(new Error(`connect ETIMEDOUT: Kubernetes API unreachable (${String(prop)})`));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }
}
