import { Decimal } from "decimal.js";
import { money } from "@/lib/money";

/**
 * A JSON form of an object graph with shared and cyclic references (a period points at its subscription, which lists
 * its periods), Maps, Sets, Decimals and instances of known classes. It is generic on purpose: a field added to the
 * ledger's state is written and read back without code here. Functions are state-less hooks and are left out.
 *
 * Layout: every object, array, Map and Set is one entry of `objects`, referenced as `{"r": index}`; the keys of plain
 * objects and class instances are shared through `shapes`. Values: JSON primitives as they are, `{"d": "1.23"}` a
 * Decimal, `{"u": 1}` undefined (in arrays and Maps only), `{"n": "NaN"}` a number JSON cannot hold.
 */
export type EncodedGraph = { shapes: string[][]; objects: unknown[][]; root: unknown };

const PLAIN = 0;
const INSTANCE = 1;
const ARRAY = 2;
const MAP = 3;
const SET = 4;

export class GraphCodecError extends Error {}

/** Classes whose instances may appear in the graph, by constructor name. */
export type ClassRegistry = Map<string, object>;

/** The prototypes of every class instance reachable from `sample` (a freshly built state), by constructor name. */
export function classesReachableFrom(sample: object): ClassRegistry {
  const registry: ClassRegistry = new Map();
  const seen = new Set<object>();
  const stack: unknown[] = [sample];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null || seen.has(value) || value instanceof Decimal) continue;
    seen.add(value);
    const proto = Object.getPrototypeOf(value) as object | null;
    if (value instanceof Map) for (const [k, v] of value) stack.push(k, v);
    else if (value instanceof Set || Array.isArray(value)) for (const v of value as Iterable<unknown>) stack.push(v);
    else {
      if (proto !== null && proto !== Object.prototype) registry.set(proto.constructor.name, proto);
      for (const v of Object.values(value)) stack.push(v);
    }
  }
  return registry;
}

export function encodeGraph(root: unknown, classes: ClassRegistry): EncodedGraph {
  const ids = new Map<object, number>();
  const objects: unknown[][] = [];
  const queue: object[] = [];
  const shapes: string[][] = [];
  const shapeIds = new Map<string, number>();

  const shapeOf = (keys: string[]): number => {
    const id = keys.join("\u0000");
    let index = shapeIds.get(id);
    if (index === undefined) {
      index = shapes.length;
      shapes.push(keys);
      shapeIds.set(id, index);
    }
    return index;
  };

  const value = (v: unknown): unknown => {
    if (v === undefined) return { u: 1 };
    if (v === null || typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") return Number.isFinite(v) ? v : { n: String(v) };
    if (typeof v === "bigint" || typeof v === "symbol" || typeof v === "function") {
      throw new GraphCodecError(`cannot store a ${typeof v}`);
    }
    if (v instanceof Decimal) return { d: v.toString() };
    const obj = v as object;
    let id = ids.get(obj);
    if (id === undefined) {
      id = objects.length;
      ids.set(obj, id);
      objects.push([]);
      queue.push(obj);
    }
    return { r: id };
  };

  const fields = (obj: object): unknown[] => {
    const keys = Object.keys(obj).filter((k) => {
      const v = (obj as Record<string, unknown>)[k];
      return typeof v !== "function" && v !== undefined;
    });
    return [shapeOf(keys), ...keys.map((k) => value((obj as Record<string, unknown>)[k]))];
  };

  const encodedRoot = value(root);
  for (let i = 0; i < queue.length; i++) {
    const obj = queue[i] as object;
    const id = ids.get(obj) as number;
    let entry: unknown[];
    if (Array.isArray(obj)) entry = [ARRAY, ...obj.map(value)];
    else if (obj instanceof Map) {
      entry = [MAP];
      for (const [k, v] of obj) entry.push(value(k), value(v));
    } else if (obj instanceof Set) entry = [SET, ...[...obj].map(value)];
    else {
      const proto = Object.getPrototypeOf(obj) as object | null;
      if (proto === null || proto === Object.prototype) entry = [PLAIN, ...fields(obj)];
      else {
        const name = proto.constructor.name;
        if (classes.get(name) !== proto) throw new GraphCodecError(`cannot store an instance of ${name}`);
        entry = [INSTANCE, name, ...fields(obj)];
      }
    }
    objects[id] = entry;
  }
  return { shapes, objects, root: encodedRoot };
}

function fail(message: string): never {
  throw new GraphCodecError(message);
}

export function decodeGraph(graph: unknown, classes: ClassRegistry): unknown {
  if (typeof graph !== "object" || graph === null) fail("the state is not an object");
  const { shapes, objects, root } = graph as Partial<EncodedGraph>;
  if (!Array.isArray(shapes) || !Array.isArray(objects)) fail("the state has no shapes or objects");
  for (const shape of shapes) {
    if (!Array.isArray(shape) || !shape.every((k) => typeof k === "string")) fail("a shape is not a list of names");
  }

  // First every shell, so that references (cycles included) resolve while the entries are filled in.
  const shells: object[] = objects.map((entry, index) => {
    if (!Array.isArray(entry)) fail(`object ${index} is not an entry`);
    switch (entry[0]) {
      case PLAIN:
        return {};
      case INSTANCE: {
        const proto = classes.get(String(entry[1]));
        if (!proto) fail(`object ${index} is of an unknown class ${String(entry[1])}`);
        return Object.create(proto) as object;
      }
      case ARRAY:
        return [];
      case MAP:
        return new Map();
      case SET:
        return new Set();
      default:
        return fail(`object ${index} has an unknown kind`);
    }
  });

  const value = (v: unknown): unknown => {
    if (v === null || typeof v === "string" || typeof v === "boolean" || typeof v === "number") return v;
    if (typeof v !== "object" || Array.isArray(v)) fail("a value is malformed");
    const tag = v as { r?: unknown; d?: unknown; u?: unknown; n?: unknown };
    if (typeof tag.r === "number") {
      const shell = shells[tag.r];
      if (!shell) fail(`a reference points at no object (${tag.r})`);
      return shell;
    }
    if (typeof tag.d === "string") {
      try {
        return money(tag.d);
      } catch {
        return fail(`a decimal is malformed (${tag.d})`);
      }
    }
    if (tag.u === 1) return undefined;
    if (typeof tag.n === "string") return Number(tag.n);
    return fail("a value has an unknown tag");
  };

  const fill = (target: Record<string, unknown>, rest: unknown[], index: number) => {
    const shape = shapes[rest[0] as number];
    if (!shape || shape.length !== rest.length - 1) fail(`object ${index} does not match its shape`);
    shape.forEach((k, i) => {
      target[k] = value(rest[i + 1]);
    });
  };

  objects.forEach((entry, index) => {
    const shell = shells[index] as object;
    if (shell instanceof Map) {
      if (entry.length % 2 !== 1) fail(`map ${index} has an odd number of items`);
      for (let i = 1; i < entry.length; i += 2) shell.set(value(entry[i]), value(entry[i + 1]));
    } else if (shell instanceof Set) for (const v of entry.slice(1)) shell.add(value(v));
    else if (Array.isArray(shell)) for (const v of entry.slice(1)) shell.push(value(v));
    else if (entry[0] === INSTANCE) fill(shell as Record<string, unknown>, entry.slice(2), index);
    else fill(shell as Record<string, unknown>, entry.slice(1), index);
  });
  return value(root);
}
