// Checks on a YAML document that the `yaml` package leaves to its caller (yaml.ts): how many nodes its aliases add
// when expanded, and where a merge key (`<<`) sits. Both run only on text the full parser reads.
import { type Alias, type Document, isAlias, isCollection, isPair, isScalar, type Node, visit } from 'yaml';

/**
 * Nodes the document's aliases add when expanded: each alias counts the whole subtree it stands for, nested aliases
 * included. `maxAliases` alone bounds the number of aliases, not their size: 899 aliases of one 100,000-entry map
 * pass it and expand to 90 million nodes. Counting stops once past `stopAt`.
 */
export function aliasNodesOf(doc: Document.Parsed, stopAt: number): number {
  // Each alias stands for the last node before it with its anchor (YAML's rule), found in one pass: the package's
  // own Alias.resolve walks the whole document once per alias.
  const anchors = new Map<string, Node>();
  const targets: (Node | undefined)[] = [];
  const targetOf = new Map<Alias, Node | undefined>();
  visit(doc, {
    Node(_, node) {
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        targets.push(target);
        targetOf.set(node, target);
        return;
      }
      if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  const sizes = new Map<Node, number>();
  const active = new Set<Node>();
  const sizeOf = (node: unknown): number => {
    if (isAlias(node)) {
      const target = targetOf.get(node);
      return target && !active.has(target) ? sizeOf(target) : 1;
    }
    if (!isCollection(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    active.add(node);
    let total = 1;
    for (const item of node.items) {
      total += isPair(item) ? sizeOf(item.key) + sizeOf(item.value) : sizeOf(item);
      if (total > stopAt) break;
    }
    active.delete(node);
    sizes.set(node, total);
    return total;
  };
  let added = 0;
  for (const target of targets) {
    added += target ? sizeOf(target) : 1;
    if (added > stopAt) break;
  }
  return added;
}

/** The field path of the first `<<` key in a parsed value (`spec.<<`, `items[1].spec.<<`), or undefined. */
export function mergeKeyPath(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        stack.push([item, `${path}[${i}]`]);
      });
      continue;
    }
    for (const [k, child] of Object.entries(v)) {
      const at = path ? `${path}.${k}` : k;
      if (k === '<<') return at;
      stack.push([child, at]);
    }
  }
  return undefined;
}

/**
 * The offset of the first repeated key in any map of the document, or undefined. The `yaml` package's own check
 * (`uniqueKeys`) compares each key with every earlier one, so one map of 150,000 keys took minutes; a set per map
 * makes it linear. Scalar keys compare by value, as the package's check does.
 */
export function repeatedKeyOffset(doc: Document.Parsed): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) {
          found = isScalar(pair.key) ? (pair.key.range?.[0] ?? 0) : 0;
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return found;
}
