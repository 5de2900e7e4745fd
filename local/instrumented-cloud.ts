// The cloud as the local pipeline's handlers see it: the simulated EC2 plus two things the pipeline needs, a
// wall-clock stamp on every CreateFleet call (the decision latency) and a fault that "kills" the invocation right
// after an instance was launched and before the claim recorded it (the crash GC and redelivery must clean up).
import type { EC2NodeClass } from '../shared/api/karpenter';
import type { NodeClaim } from '../shared/api/nodeclaim';
import type { CloudInstance, CloudProvider, LaunchRequest } from '../shared/ports';
import type { SimCloud } from '../shared/sim';

export interface CreateCall {
  claim: string;
  pods: number;
  /** The claim's nominated pods, `namespace/name`. */
  podKeys: string[];
  /** Wall-clock ms from the start of the invocation that made the call (the handler's decision time). */
  sinceInvocationMs: number;
  /** performance.now() when the handler called create. */
  wallAt: number;
  /** Virtual time of the call. */
  at: number;
}

/** Thrown into the running invocation's race when the crash fault fires. */
export class SimulatedCrash extends Error {
  constructor(what: string) {
    super(`simulated crash: the invocation died after ${what}`);
    this.name = 'SimulatedCrash';
  }
}

export class InstrumentedCloud implements CloudProvider {
  readonly creates: CreateCall[] = [];
  /** performance.now() when the running invocation started; the pipeline sets it. */
  invocationStartedAt = 0;
  private crashesLeft = 0;

  constructor(
    readonly sim: SimCloud,
    private readonly now: () => number,
    /** Called when the crash fault fires; the pipeline fails the running invocation. */
    private readonly onCrash: (error: SimulatedCrash) => void,
  ) {}

  /** The next `n` launches succeed in EC2 but the invocation dies before recording them. */
  crashAfterNextLaunches(n = 1): void {
    this.crashesLeft = n;
  }

  async create(request: LaunchRequest): Promise<CloudInstance> {
    const wallAt = performance.now();
    this.creates.push({
      claim: request.claim.name,
      pods: request.claim.nominatedPods.length,
      podKeys: request.claim.nominatedPods.map((p) => `${p.namespace}/${p.name}`),
      sinceInvocationMs: wallAt - this.invocationStartedAt,
      wallAt,
      at: this.now(),
    });
    const instance = await this.sim.create(request);
    if (this.crashesLeft > 0) {
      this.crashesLeft--;
      this.onCrash(new SimulatedCrash(`launching ${instance.instanceId} for ${request.claim.name}`));
      // The process is gone: nothing after this point runs.
      return new Promise<CloudInstance>(() => {});
    }
    return instance;
  }

  delete(instanceId: string): Promise<void> {
    return this.sim.delete(instanceId);
  }

  get(instanceId: string): Promise<CloudInstance | undefined> {
    return this.sim.get(instanceId);
  }

  list(): Promise<CloudInstance[]> {
    return this.sim.list();
  }

  getInstanceTypes(nodeClass: EC2NodeClass) {
    return this.sim.getInstanceTypes(nodeClass);
  }

  isDrifted(claim: NodeClaim, nodeClass: EC2NodeClass): Promise<string | undefined> {
    return this.sim.isDrifted(claim, nodeClass);
  }
}
