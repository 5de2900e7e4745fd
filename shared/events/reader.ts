// A tiny path-aware reader for untrusted JSON. Every problem names the source and the field path, and all problems
// of one document are collected before failing, so one log line explains everything wrong with a message.
import { ValidationError } from '../errors';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

export class Reader {
  readonly problems: string[] = [];

  constructor(readonly source: string) {}

  fail(path: string, message: string): undefined {
    this.problems.push(`${this.source}: ${path === '' ? '(body)' : path}: ${message}`);
    return undefined;
  }

  object(value: unknown, path: string): JsonObject | undefined {
    if (isObject(value)) return value;
    return this.fail(
      path,
      value === undefined ? 'required object is missing' : `expected an object, got ${describe(value)}`,
    );
  }

  string(obj: JsonObject, key: string, path: string): string | undefined {
    const value = obj[key];
    if (typeof value === 'string' && value.length > 0) return value;
    if (value === undefined) return this.fail(join(path, key), 'required string is missing');
    return this.fail(join(path, key), `expected a non-empty string, got ${describe(value)}`);
  }

  optionalString(obj: JsonObject, key: string, path: string): string | undefined {
    if (obj[key] === undefined) return undefined;
    return this.string(obj, key, path);
  }

  oneOf<T extends string>(
    obj: JsonObject,
    key: string,
    path: string,
    allowed: readonly T[],
    what = 'value',
  ): T | undefined {
    const value = this.string(obj, key, path);
    if (value === undefined) return undefined;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    return this.fail(join(path, key), `unknown ${what} "${value}" (expected one of: ${allowed.join(', ')})`);
  }

  /** An ISO-8601 (or RFC 1123, as AWS Health sends) timestamp, returned normalized to ISO-8601. */
  time(obj: JsonObject, key: string, path: string): string | undefined {
    const value = this.string(obj, key, path);
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) return this.fail(join(path, key), `expected a timestamp, got ${describe(value)}`);
    return new Date(ms).toISOString();
  }

  array(obj: JsonObject, key: string, path: string): unknown[] | undefined {
    const value = obj[key];
    if (Array.isArray(value)) return value;
    if (value === undefined) return this.fail(join(path, key), 'required array is missing');
    return this.fail(join(path, key), `expected an array, got ${describe(value)}`);
  }

  /** Calls `each` on every object of a required array, in order, with its path (problems stay in item order); an
   * item that is not an object is a problem and skipped. Returns the item count, undefined when there is no array. */
  eachObject(
    obj: JsonObject,
    key: string,
    path: string,
    each: (item: JsonObject, path: string) => void,
  ): number | undefined {
    const items = this.array(obj, key, path);
    if (!items) return undefined;
    items.forEach((value, i) => {
      const itemPath = join(join(path, key), i);
      const item = this.object(value, itemPath);
      if (item) each(item, itemPath);
    });
    return items.length;
  }

  /** Throws one ValidationError listing every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw new ValidationError(this.problems);
  }
}

export function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** Parses a message body as JSON; a body that is not JSON is a ValidationError naming the source. */
export function parseJson(body: string, source: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ValidationError([`${source}: body is not valid JSON (${reason})`]);
  }
}

export interface ParseOptions {
  /** Names the message in errors, e.g. `SQS message 059f36b4 (karpless-prod-events.fifo)`. */
  source?: string;
}

/** Parses a body as JSON, then validates it; errors name the options' source, or `what` without one. */
export function bodyParser<T>(what: string, validate: (value: unknown, source: string) => T) {
  return (body: string, options: ParseOptions = {}): T => {
    const source = options.source ?? what;
    return validate(parseJson(body, source), source);
  };
}
