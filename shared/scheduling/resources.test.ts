import { describe, expect, it } from 'vitest';
import { pod as buildPod } from '../../testkit/builders';
import type { Pod } from '../api/kube';
import { fitsVec, podRequests, ResourceIndex } from './resources';

const pod = (spec: Partial<Pod['spec']>): Pod => buildPod({ name: 'p', containers: [], ...spec });
const c = (cpu: string, memory = '0') => ({ name: 'c', resources: { requests: { cpu, memory } } });

describe('podRequests', () => {
  it('sums containers and counts one pod', () => {
    expect(podRequests(pod({ containers: [c('500m', '1Gi'), c('250m', '512Mi')] }))).toEqual({
      cpu: 750,
      memory: 1.5 * 2 ** 30,
      pods: 1,
    });
  });

  it('takes the max of init containers and running containers', () => {
    const r = podRequests(pod({ containers: [c('500m')], initContainers: [c('2'), c('1')] }));
    expect(r.cpu).toBe(2000);
  });

  it('adds restartable sidecars to the running total and to later init containers', () => {
    const r = podRequests(
      pod({
        containers: [c('500m')],
        initContainers: [{ ...c('300m'), restartPolicy: 'Always' }, c('1')],
      }),
    );
    // running: 500m + 300m sidecar = 800m; init peak: 300m sidecar + 1000m = 1300m.
    expect(r.cpu).toBe(1300);
    const r2 = podRequests(
      pod({ containers: [c('2')], initContainers: [{ ...c('300m'), restartPolicy: 'Always' }, c('1')] }),
    );
    expect(r2.cpu).toBe(2300);
  });

  it('adds pod overhead and extended resources, and defaults requests to limits', () => {
    const r = podRequests(
      pod({
        containers: [
          { name: 'g', resources: { limits: { 'nvidia.com/gpu': 1, cpu: '1' }, requests: { cpu: '250m' } } },
        ],
        overhead: { cpu: '100m', memory: '64Mi' },
      }),
    );
    expect(r).toEqual({ cpu: 350, 'nvidia.com/gpu': 1, memory: 64 * 2 ** 20, pods: 1 });
  });
});

describe('ResourceIndex', () => {
  it('builds dense vectors and checks fit', () => {
    const idx = new ResourceIndex();
    idx.register({ 'nvidia.com/gpu': 1 });
    const cap = idx.vector({ cpu: 1000, memory: 100, pods: 2 });
    expect(fitsVec(new Float64Array(4), idx.vector({ cpu: 1000, pods: 1 }), cap)).toBe(true);
    expect(fitsVec(new Float64Array(4), idx.vector({ cpu: 10, 'nvidia.com/gpu': 1 }), cap)).toBe(false);
    expect(idx.toList(cap)).toEqual({ cpu: 1000, memory: 100, pods: 2 });
  });
});
