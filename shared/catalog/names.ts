// Instance type names: "m7i-flex.2xlarge" → family m7i-flex, size 2xlarge, category m, generation 7 (Karpenter's
// reading: the leading letters are the category, the first digits the generation).
export interface InstanceTypeName {
  family: string;
  size: string;
  category: string;
  generation: number;
}

const FAMILY = /^([a-z]+)(?:-\d+tb\d*)?(\d+)/;

export function parseInstanceTypeName(name: string): InstanceTypeName | undefined {
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) return undefined;
  const family = name.slice(0, dot);
  const match = FAMILY.exec(family);
  if (!match) return undefined;
  return { family, size: name.slice(dot + 1), category: match[1] as string, generation: Number(match[2]) };
}
