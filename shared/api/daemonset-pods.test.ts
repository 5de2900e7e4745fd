import { describe, expect, it } from 'vitest';
import { daemonSet, ownedBy, pod } from '../../testkit/builders';
import { daemonSetsFromPods } from './daemonset-pods';

const onNode = (node: string, name: string, memory: string, creationTimestamp: string) => {
  const p = pod({
    name,
    namespace: 'kube-system',
    labels: { 'k8s-app': 'agent' },
    ownerReferences: ownedBy('DaemonSet', 'agent'),
    nodeName: node,
    memory,
    tolerations: [{ operator: 'Exists' }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }],
              matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }],
            },
          ],
        },
      },
    },
  });
  p.metadata.creationTimestamp = creationTimestamp;
  return p;
};

describe('daemonSetsFromPods', () => {
  it("takes the newest pod's spec without what the DaemonSet controller adds for its node", () => {
    const newer = onNode('node-b', 'agent-b', '96Mi', '2026-01-02T00:00:00Z');
    const older = onNode('node-a', 'agent-a', '64Mi', '2026-01-01T00:00:00Z');
    const { daemonSets, warnings } = daemonSetsFromPods([newer, older, pod({ name: 'web' })], []);
    expect(daemonSets).toHaveLength(1);
    const ds = daemonSets[0];
    expect(ds?.metadata).toEqual({ name: 'agent', namespace: 'kube-system' });
    expect(ds?.spec.template.metadata?.labels).toEqual({ 'k8s-app': 'agent' });
    expect(ds?.spec.template.spec.nodeName).toBeUndefined();
    expect(ds?.spec.template.spec.containers[0]?.resources?.requests).toEqual({ memory: '96Mi' });
    expect(ds?.spec.template.spec.tolerations).toEqual([{ operator: 'Exists' }]);
    expect(ds?.spec.template.spec.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }],
        },
      },
    });
    expect(warnings).toEqual([expect.stringContaining(': kube-system/agent (2 pods); add daemonsets')]);
  });

  it('drops a node affinity that held only the controller term', () => {
    const p = onNode('node-a', 'agent-a', '64Mi', '2026-01-01T00:00:00Z');
    const terms = p.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    if (terms?.[0]) delete terms[0].matchExpressions;
    expect(daemonSetsFromPods([p], []).daemonSets[0]?.spec.template.spec.affinity).toBeUndefined();
  });

  it('derives nothing for a DaemonSet the input holds', () => {
    const p = onNode('node-a', 'agent-a', '64Mi', '2026-01-01T00:00:00Z');
    const given = daemonSet('agent');
    expect(daemonSetsFromPods([p], [given])).toEqual({ daemonSets: [], warnings: [] });
  });
});
