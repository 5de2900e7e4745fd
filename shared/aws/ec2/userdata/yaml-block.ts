// Block-style YAML for the documents we generate (AL2023's NodeConfig): plain objects, arrays, strings, numbers and
// booleans. It replaces the `yaml` package in the Lambda bundles (~110 KiB minified, for one stringify). The rule
// that keeps it safe is the quoting: a string is written plain only when it starts with a letter, uses a small set of
// characters and is not a word YAML 1.1 reads as a boolean or null (nodeadm's Go parser is YAML 1.1); anything else
// is a JSON string, which both YAML versions read back as the same string. yaml-block.test.ts checks the round trip
// with the `yaml` parser under both versions.

const PLAIN = /^[A-Za-z][A-Za-z0-9_./=,%@+:-]*$/;
const YAML11_WORDS = /^(y|n|yes|no|true|false|on|off|null)$/i;

export type YamlValue = string | number | boolean | readonly YamlValue[] | { readonly [key: string]: YamlValue };

function scalar(s: string): string {
  return PLAIN.test(s) && !s.endsWith(':') && !YAML11_WORDS.test(s) ? s : JSON.stringify(s);
}

function isCollection(v: YamlValue): v is readonly YamlValue[] | { readonly [key: string]: YamlValue } {
  return typeof v === 'object';
}

function isEmpty(v: YamlValue): boolean {
  return Array.isArray(v) ? v.length === 0 : isCollection(v) && Object.keys(v).length === 0;
}

function inline(v: YamlValue): string {
  if (typeof v === 'string') return scalar(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot write ${v} as YAML`);
    return String(v);
  }
  if (typeof v === 'boolean') return String(v);
  return Array.isArray(v) ? '[]' : '{}';
}

function lines(v: YamlValue, indent: string): string[] {
  const out: string[] = [];
  const child = (prefix: string, item: YamlValue) => {
    if (isCollection(item) && !isEmpty(item)) out.push(prefix, ...lines(item, `${indent}  `));
    else out.push(`${prefix} ${inline(item)}`);
  };
  if (Array.isArray(v)) for (const item of v as readonly YamlValue[]) child(`${indent}-`, item);
  else
    for (const [key, item] of Object.entries(v as { [key: string]: YamlValue }))
      child(`${indent}${scalar(key)}:`, item);
  return out;
}

/** The document as block YAML, ending in a newline. */
export function toBlockYaml(doc: { readonly [key: string]: YamlValue }): string {
  return `${lines(doc, '').join('\n')}\n`;
}
