// A small evaluator for the subset of CEL (the Common Expression Language kube-apiserver runs admission policies in)
// that Karpless's ValidatingAdmissionPolicy uses, so its tests can run the policy's own expressions: string, bool and
// null literals, identifiers, field selection, `has(a.b)`, `==`, `!=`, `in` (list membership, map keys), `!`, `&&`,
// `||` and parentheses. As in CEL, selecting a missing field is an error, and `&&`/`||` absorb an error on one side
// when the other side decides the result (false for `&&`, true for `||`). Anything outside the subset is a parse
// error, so a policy that grows beyond it fails its tests instead of being misread. The policy's expressions were
// also checked with @bufbuild/cel, a full CEL implementation (see the test's header).

export type CelValue = string | boolean | null | CelValue[] | { [key: string]: CelValue | undefined };

type Node =
  | { t: 'lit'; v: CelValue }
  | { t: 'id'; name: string }
  | { t: 'sel'; of: Node; field: string }
  | { t: 'has'; of: Node; field: string }
  | { t: 'not'; x: Node }
  | { t: 'bin'; op: '==' | '!=' | 'in' | '&&' | '||'; l: Node; r: Node };

const TOKEN = /\s*(?:(\|\||&&|==|!=|[!().])|("(?:[^"\\]|\\.)*")|('(?:[^'\\]|\\.)*')|([A-Za-z_][A-Za-z0-9_]*))/y;

function tokenize(src: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    if (/^\s*$/.test(src.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (!m) throw new Error(`CEL subset: unexpected input at ${at}: ${src.slice(at, at + 20)}`);
    out.push((m[1] ?? m[2] ?? m[3] ?? m[4]) as string);
  }
  return out;
}

function parse(src: string): Node {
  const toks = tokenize(src);
  let i = 0;
  const peek = () => toks[i];
  const take = (want?: string): string => {
    const tok = toks[i++];
    if (tok === undefined || (want !== undefined && tok !== want)) {
      throw new Error(`CEL subset: expected ${want ?? 'a token'} at token ${i - 1} of: ${src}`);
    }
    return tok;
  };
  const or = (): Node => {
    let l = and();
    while (peek() === '||') {
      take();
      l = { t: 'bin', op: '||', l, r: and() };
    }
    return l;
  };
  const and = (): Node => {
    let l = rel();
    while (peek() === '&&') {
      take();
      l = { t: 'bin', op: '&&', l, r: rel() };
    }
    return l;
  };
  const rel = (): Node => {
    const l = unary();
    const op = peek();
    if (op === '==' || op === '!=' || op === 'in') {
      take();
      return { t: 'bin', op, l, r: unary() };
    }
    return l;
  };
  const unary = (): Node => {
    if (peek() === '!') {
      take();
      return { t: 'not', x: unary() };
    }
    return member();
  };
  const member = (): Node => {
    let n = primary();
    while (peek() === '.') {
      take();
      n = { t: 'sel', of: n, field: ident() };
    }
    return n;
  };
  const ident = (): string => {
    const tok = take();
    if (!/^[A-Za-z_]/.test(tok)) throw new Error(`CEL subset: expected a name, got ${tok}`);
    return tok;
  };
  const primary = (): Node => {
    const tok = take();
    if (tok === '(') {
      const x = or();
      take(')');
      return x;
    }
    if (tok.startsWith('"')) return { t: 'lit', v: JSON.parse(tok) as string };
    if (tok.startsWith("'")) return { t: 'lit', v: JSON.parse(`"${tok.slice(1, -1).replace(/"/g, '\\"')}"`) };
    if (tok === 'true' || tok === 'false') return { t: 'lit', v: tok === 'true' };
    if (tok === 'null') return { t: 'lit', v: null };
    if (tok === 'has' && peek() === '(') {
      take('(');
      const arg = member();
      take(')');
      if (arg.t !== 'sel') throw new Error('CEL subset: has() takes a field selection');
      return { t: 'has', of: arg.of, field: arg.field };
    }
    if (!/^[A-Za-z_]/.test(tok)) throw new Error(`CEL subset: unexpected ${tok} in: ${src}`);
    return { t: 'id', name: tok };
  };
  const tree = or();
  if (i !== toks.length) throw new Error(`CEL subset: unexpected ${toks[i]} in: ${src}`);
  return tree;
}

const isMap = (v: CelValue | undefined): v is { [key: string]: CelValue | undefined } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function evaluate(n: Node, vars: Record<string, CelValue>): CelValue {
  switch (n.t) {
    case 'lit':
      return n.v;
    case 'id': {
      if (!(n.name in vars)) throw new Error(`undeclared reference to '${n.name}'`);
      return vars[n.name] as CelValue;
    }
    case 'sel':
    case 'has': {
      const of = evaluate(n.of, vars);
      if (!isMap(of)) throw new Error(`cannot select field '${n.field}' from ${JSON.stringify(of)}`);
      const v = of[n.field];
      if (n.t === 'has') return v !== undefined;
      if (v === undefined) throw new Error(`no such key: ${n.field}`);
      return v;
    }
    case 'not': {
      const x = evaluate(n.x, vars);
      if (typeof x !== 'boolean') throw new Error('! takes a bool');
      return !x;
    }
    case 'bin':
      return binary(n, vars);
  }
}

function binary(n: Extract<Node, { t: 'bin' }>, vars: Record<string, CelValue>): CelValue {
  if (n.op === '&&' || n.op === '||') {
    const decides = n.op === '||';
    const side = (x: Node): { v?: boolean; err?: unknown } => {
      try {
        const v = evaluate(x, vars);
        if (typeof v !== 'boolean') throw new Error(`${n.op} takes bools`);
        return { v };
      } catch (err) {
        return { err };
      }
    };
    const l = side(n.l);
    if (l.v === decides) return decides;
    const r = side(n.r);
    if (r.v === decides) return decides;
    if (l.err !== undefined) throw l.err;
    if (r.err !== undefined) throw r.err;
    return !decides;
  }
  const l = evaluate(n.l, vars);
  const r = evaluate(n.r, vars);
  if (n.op === 'in') {
    if (Array.isArray(r)) return r.some((x) => x === l);
    if (isMap(r)) return typeof l === 'string' && r[l] !== undefined;
    throw new Error('in takes a list or a map');
  }
  const same = JSON.stringify(l) === JSON.stringify(r);
  return n.op === '==' ? same : !same;
}

/** Evaluates one expression; throws on a parse or evaluation error, as kube-apiserver reports both. */
export function evalCel(expression: string, vars: Record<string, CelValue>): CelValue {
  return evaluate(parse(expression), vars);
}
