// Readers for the three generated files of Karpenter's AWS provider the embedded catalog is built from: the
// instance-type reference (labels and allocatable per type), the on-demand price table and the VPC limits table.
// They read the published data only; the compact tables they yield are checked in beside this file
// (docs/catalog.md, "Sources"). Each reader throws naming the file and line it cannot read.

/** One type as Karpenter's instance-type reference lists it: its labels and its resources after overhead. */
export interface ReferenceType {
  name: string;
  labels: Record<string, string>;
  resources: Record<string, string>;
}

/** ENI figures and hypervisor of one type, as Karpenter's VPC limits table records them. */
export interface VpcLimit {
  name: string;
  /** Interfaces of the default network card: the VPC CNI uses no other, so pods are counted from these. */
  interfaces: number;
  ipv4PerInterface: number;
  branchInterfaces: number;
  hypervisor: string;
  bareMetal: boolean;
}

const TYPE_HEADING = /^### `([^`]+)`/;
const HEADER_CELLS = new Set(['Label', 'Resource', '--']);
const TABLE_ROW = /^ \|([^|]*)\|([^|]*)\|$/;

/** website/content/en/docs/reference/instance-types.md: `### \`name\``, then a Labels and a Resources table. */
export function parseReference(text: string, file: string): ReferenceType[] {
  const types: ReferenceType[] = [];
  let current: ReferenceType | undefined;
  let section: 'labels' | 'resources' | undefined;
  text.split('\n').forEach((line, i) => {
    const heading = TYPE_HEADING.exec(line);
    if (heading) {
      current = { name: heading[1] as string, labels: {}, resources: {} };
      types.push(current);
      section = undefined;
      return;
    }
    if (line.startsWith('#### Labels')) section = 'labels';
    else if (line.startsWith('#### Resources')) section = 'resources';
    else if (line.startsWith('#')) section = undefined;
    const row = TABLE_ROW.exec(line);
    const key = row?.[1]?.trim();
    if (!row || !section || !key || HEADER_CELLS.has(key)) return;
    if (!current) throw new Error(`${file}:${i + 1}: a table row before any instance type`);
    // The type's name and OS repeat what the row already says (its heading; AL2023 is Linux).
    if (key === 'node.kubernetes.io/instance-type' || key === 'kubernetes.io/os') return;
    current[section][key] = (row[2] as string).trim();
  });
  if (types.length === 0) throw new Error(`${file}: no instance types found`);
  return types;
}

/** pkg/providers/pricing/zz_generated.pricing_aws.go: region → type → Linux on-demand $/h. */
export function parsePrices(
  text: string,
  file: string,
): { generatedAt: string; prices: Map<string, Map<string, number>> } {
  const stamp = /generated at (\S+)/.exec(text);
  if (!stamp) throw new Error(`${file}: no "generated at" line`);
  const prices = new Map<string, Map<string, number>>();
  let region: Map<string, number> | undefined;
  text.split('\n').forEach((line, i) => {
    const open = /^\s*"([a-z]+(?:-[a-z]+)+-\d+)": \{/.exec(line);
    if (open) {
      region = new Map();
      prices.set(open[1] as string, region);
      return;
    }
    for (const m of line.matchAll(/"([a-z0-9-]+\.[a-z0-9-]+)": ([0-9.]+)/g)) {
      if (!region) throw new Error(`${file}:${i + 1}: a price before any region`);
      region.set(m[1] as string, Number(m[2]));
    }
  });
  if (prices.size === 0) throw new Error(`${file}: no regions found`);
  return { generatedAt: stamp[1] as string, prices };
}

const LIMIT_FIELDS = { IPv4PerInterface: 'ipv4PerInterface', BranchInterface: 'branchInterfaces' } as const;

/** A block's network cards (index → maximum interfaces) and which is the default. */
interface Cards {
  byIndex: Map<number, number>;
  pending?: number;
  defaultIndex: number;
}

/** pkg/providers/instancetype/zz_generated.vpclimits.go: one `"name": {` block per type. */
export function parseVpcLimits(text: string, file: string): Map<string, VpcLimit> {
  const limits = new Map<string, VpcLimit>();
  let current: VpcLimit | undefined;
  let cards: Cards = { byIndex: new Map(), defaultIndex: 0 };
  const close = () => {
    if (!current) return;
    const interfaces = cards.byIndex.get(cards.defaultIndex);
    if (interfaces === undefined) throw new Error(`${file}: ${current.name} has no default network card`);
    current.interfaces = interfaces;
  };
  text.split('\n').forEach((line, i) => {
    const open = /^\t"([a-z0-9-]+\.[a-z0-9-]+)": \{/.exec(line);
    if (open) {
      close();
      const name = open[1] as string;
      current = { name, interfaces: 0, ipv4PerInterface: 0, branchInterfaces: 0, hypervisor: '', bareMetal: false };
      cards = { byIndex: new Map(), defaultIndex: 0 };
      limits.set(name, current);
      return;
    }
    const card = /^\t+(MaximumNetworkInterfaces|NetworkCardIndex):\s+(\d+),$/.exec(line);
    if (card && current) {
      if (card[1] === 'MaximumNetworkInterfaces') cards.pending = Number(card[2]);
      else if (cards.pending !== undefined) cards.byIndex.set(Number(card[2]), cards.pending);
      return;
    }
    const field = /^\t\t(\w+):\s+(.+),$/.exec(line);
    if (!field || !current) return;
    const [key, value] = [field[1] as string, field[2] as string];
    if (key === 'DefaultNetworkCardIndex') cards.defaultIndex = Number(value);
    else if (key in LIMIT_FIELDS) {
      const n = Number(value);
      if (!Number.isInteger(n)) throw new Error(`${file}:${i + 1}: ${current.name}.${key} is not an integer`);
      current[LIMIT_FIELDS[key as keyof typeof LIMIT_FIELDS]] = n;
    } else if (key === 'Hypervisor') current.hypervisor = JSON.parse(value) as string;
    else if (key === 'IsBareMetal') current.bareMetal = value === 'true';
  });
  close();
  if (limits.size === 0) throw new Error(`${file}: no VPC limits found`);
  return limits;
}
