import { describe, expect, it } from 'vitest';
import { NodeFilter } from './nodefilter';
import { Requirement } from './requirement';
import { Requirements } from './requirements';
import { Topology, type TopologyShape } from './topology';

const ZONES = ['a', 'b', 'c'];
const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

function setup() {
  const topo = new Topology(new Map(), { of: () => ZONES });
  const id = { namespace: 'default', labels: { app: 'web' } };
  return { topo, id };
}

const shape = (
  groups: TopologyShape['groups'],
  requiredAnti: TopologyShape['requiredAnti'] = [],
  baseId = 1,
): TopologyShape => ({
  namespace: 'default',
  labels: { app: 'web' },
  baseId,
  identity: baseId,
  groups,
  requiredAnti,
});
const anyZone = Requirements.from([{ key: ZONE, operator: 'In', values: ZONES }]);
const inZone = (z: string) => Requirements.from([{ key: ZONE, operator: 'In', values: [z] }]);
/** A required zone spread of app=web pods. */
const webZoneSpread = {
  maxSkew: 1,
  topologyKey: ZONE,
  whenUnsatisfiable: 'DoNotSchedule' as const,
  labelSelector: { matchLabels: { app: 'web' } },
};

describe('Topology', () => {
  it('pins a spread pod to the least-loaded zone', () => {
    const { topo, id } = setup();
    const g = topo.spreadGroup(id, {
      maxSkew: 1,
      topologyKey: ZONE,
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { app: 'web' } },
    });
    const s = shape([g]);
    g.record('a');
    const res = topo.check(s, anyZone, 'n1');
    expect(res.ok && res.requirements[0]?.toString()).toBe('[b]');
    g.record('b');
    g.record('c');
    g.record('a');
    expect(topo.check(s, inZone('a'), 'n1').ok).toBe(false);
  });

  it('says why no zone works, with the counts at the check, and not for good', () => {
    const { topo, id } = setup();
    const g = topo.spreadGroup(id, webZoneSpread);
    g.record('a');
    const res = topo.check(shape([g]), inZone('a'), 'n1');
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.permanent).toBeUndefined();
    expect(res.reason).toBe(
      'topology spread on topology.kubernetes.io/zone maxSkew=1 cannot be satisfied (counts: a=1, b=0, c=0)',
    );
    const none = new Topology(new Map(), { of: () => [] });
    const lone = none.spreadGroup(id, webZoneSpread);
    const empty = none.check(shape([lone]), anyZone, 'n1');
    expect(!empty.ok && empty.reason).toBe(
      'topology spread on topology.kubernetes.io/zone maxSkew=1: no eligible topology.kubernetes.io/zone domain',
    );
  });

  it('treats the hostname minimum as zero', () => {
    const { topo, id } = setup();
    const g = topo.spreadGroup(id, {
      maxSkew: 1,
      topologyKey: HOST,
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { app: 'web' } },
    });
    g.record('n1');
    expect(topo.check(shape([g]), anyZone, 'n1').ok).toBe(false);
    expect(topo.check(shape([g]), anyZone, 'n2').ok).toBe(true);
  });

  it('bootstraps self-affinity, then follows it', () => {
    const { topo, id } = setup();
    const g = topo.affinityGroup(
      id,
      { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: ZONE },
      'affinity',
      true,
    );
    const s = shape([g]);
    const first = topo.check(s, anyZone, 'n1');
    expect(first.ok && first.requirements[0]?.toString()).toBe('[a]');
    topo.record(s, inZone('a'), 'n1', [], false);
    expect(topo.check(s, inZone('b'), 'n2').ok).toBe(false);
    expect(topo.check(s, inZone('a'), 'n2').ok).toBe(true);
  });

  it('keeps anti-affinity pods out of occupied domains and records owners for the inverse rule', () => {
    const { topo, id } = setup();
    const g = topo.affinityGroup(
      id,
      { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: ZONE },
      'antiAffinity',
      true,
    );
    const s = shape([g], [g]);
    topo.record(s, inZone('a'), 'n1', [], false);
    const next = topo.check(s, anyZone, 'n2');
    expect(next.ok && next.requirements.map(String)).toEqual(['[b]']);
    // A plain pod that the group selects must avoid zone a too.
    const plain = shape([], [], 2);
    const res = topo.check(plain, anyZone, 'n3');
    expect(res.ok && res.requirements[0]?.has('a')).toBe(false);
  });

  it('shares groups between pods with the same constraint and separates matchLabelKeys values', () => {
    const { topo } = setup();
    const c = { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule' as const, matchLabelKeys: ['rev'] };
    const g1 = topo.spreadGroup({ namespace: 'default', labels: { rev: '1' } }, c);
    const g1b = topo.spreadGroup({ namespace: 'default', labels: { rev: '1' } }, c);
    const g2 = topo.spreadGroup({ namespace: 'default', labels: { rev: '2' } }, c);
    expect(g1).toBe(g1b);
    expect(g1).not.toBe(g2);
    expect(g1.selects({ namespace: 'default', labels: { rev: '1' } })).toBe(true);
    expect(g1.selects({ namespace: 'default', labels: { rev: '2' } })).toBe(false);
  });

  it("keys nodeTaintsPolicy Honor groups by the owners' tolerations, and counts only nodes they tolerate", () => {
    const { topo, id } = setup();
    const c = webZoneSpread;
    const gpu = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const };
    const tolerating = [{ key: 'nvidia.com/gpu', operator: 'Exists' as const }];
    const ignore = topo.spreadGroup(id, c, tolerating);
    expect(topo.spreadGroup(id, { ...c, nodeTaintsPolicy: 'Ignore' }, [])).toBe(ignore);
    const honor = topo.spreadGroup(id, { ...c, nodeTaintsPolicy: 'Honor' }, []);
    const honorTolerating = topo.spreadGroup(id, { ...c, nodeTaintsPolicy: 'Honor' }, tolerating);
    expect(honor).not.toBe(ignore);
    expect(honorTolerating).not.toBe(honor);
    expect(ignore.countsOn([gpu], inZone('a'), false)).toBe(true);
    expect(honor.countsOn([gpu], inZone('a'), false)).toBe(false);
    expect(honor.countsOn([{ ...gpu, effect: 'PreferNoSchedule' }], inZone('a'), false)).toBe(true);
    expect(honorTolerating.countsOn([gpu], inZone('a'), false)).toBe(true);
    topo.record(shape([], [], 4), inZone('a'), 'n1', [gpu], false);
    expect([ignore.count('a'), honor.count('a'), honorTolerating.count('a')]).toEqual([1, 0, 1]);
  });

  it("keys nodeAffinityPolicy Honor groups by the owners' node affinity, and counts only bins it admits", () => {
    const { topo, id } = setup();
    const c = webZoneSpread;
    const filter = (labels: Record<string, string>) => NodeFilter.of([Requirements.fromLabels(labels)]);
    const plain = topo.spreadGroup(id, c);
    expect(filter({})).toBeUndefined();
    const honor = topo.spreadGroup(id, c, [], filter({ team: 'y', tier: 'web' }));
    expect(honor).not.toBe(plain);
    expect(topo.spreadGroup(id, c, [], filter({ tier: 'web', team: 'y' }))).toBe(honor);
    const ignore = topo.spreadGroup(id, { ...c, nodeAffinityPolicy: 'Ignore' }, [], filter({ team: 'y' }));
    expect(topo.spreadGroup(id, { ...c, nodeAffinityPolicy: 'Ignore' })).toBe(ignore);
    const node = (team: string) => Requirements.fromLabels({ [ZONE]: 'a', team, tier: 'web' });
    expect(honor.countsOn([], node('y'), false)).toBe(true);
    expect(honor.countsOn([], node('x'), false)).toBe(false);
    expect(ignore.countsOn([], node('x'), false)).toBe(true);
    // A claim counts while it may still become a matching node.
    const open = Requirements.from([{ key: 'team', operator: 'In', values: ['x', 'y'] }]).addAll(inZone('a'));
    expect(honor.countsOn([], open.clone().add(Requirement.of('tier', 'Exists')), true)).toBe(true);
    // Instance-type labels a claim does not constrain yet are open; on a node, a missing label does not match.
    const arm = topo.spreadGroup(id, c, [], filter({ 'kubernetes.io/arch': 'arm64' }));
    expect(arm.countsOn([], inZone('a'), true)).toBe(true);
    expect(arm.countsOn([], inZone('a'), false)).toBe(false);
    topo.record(shape([], [], 5), node('x'), 'n1', [], false);
    expect([plain.count('a'), honor.count('a'), ignore.count('a')]).toEqual([1, 0, 1]);
  });

  it('counts pods already on a claim once its zone is pinned', () => {
    const { topo, id } = setup();
    const g = topo.spreadGroup(id, {
      maxSkew: 1,
      topologyKey: ZONE,
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { app: 'web' } },
    });
    const plain = shape([], [], 3);
    topo.record(plain, anyZone, 'n1', [], true);
    expect(g.count('b')).toBe(0);
    topo.recordPinned([plain, plain], anyZone, inZone('b'), []);
    expect(g.count('b')).toBe(2);
    topo.recordPinned([plain], inZone('b'), inZone('b'), []);
    expect(g.count('b')).toBe(2);
  });

  it('fails a constraint on a key the node lacks', () => {
    const { topo, id } = setup();
    const g = topo.spreadGroup(id, {
      maxSkew: 1,
      topologyKey: 'rack',
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: {},
    });
    const res = topo.check(shape([g]), new Requirements().add(Requirement.of(ZONE, 'In', ['a'])), 'n1');
    expect(res.ok).toBe(false);
  });

  it('bars a node by hostname exactly where check fails for good', () => {
    const { topo, id } = setup();
    const spread = topo.spreadGroup(id, { ...webZoneSpread, maxSkew: 2, topologyKey: HOST });
    const anti = topo.affinityGroup(
      { namespace: 'default', labels: { app: 'db' } },
      { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: HOST },
      'antiAffinity',
      true,
    );
    // A web pod: its own hostname spread (it counts itself), and the db pods' anti-affinity that selects it.
    const web = shape([spread]);
    const db = { ...shape([anti], [anti], 2), labels: { app: 'db' } };
    const barred = (s: TopologyShape, host: string) =>
      topo.hostnameBars(s).some((b) => (b.counts.get(host) ?? 0) >= b.limit);
    const failsForGood = (s: TopologyShape, host: string) => {
      const r = topo.check(s, anyZone, host);
      return !r.ok && r.permanent === true;
    };
    expect(topo.hostnameBars(web).map((b) => b.limit)).toEqual([2, 1]);
    spread.record('n1');
    anti.record('n2');
    anti.recordOwner('n3');
    for (const host of ['n1', 'n2', 'n3', 'n4']) {
      expect([host, barred(web, host)]).toEqual([host, failsForGood(web, host)]);
      expect([host, barred(db, host)]).toEqual([host, failsForGood(db, host)]);
    }
    spread.record('n1');
    expect(barred(web, 'n1')).toBe(true);
    expect(failsForGood(web, 'n1')).toBe(true);
    expect(barred(db, 'n2')).toBe(true);
    expect(barred(web, 'n4')).toBe(false);
  });
});
