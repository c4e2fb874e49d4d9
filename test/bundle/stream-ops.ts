/** Runs the op lists of lib/bundle/vectors/stream.json (and the Python cross-check) on the TypeScript stream. */
import {Stream, tensorBytes, type IntType, type Tensor} from '../../dist/lib/index.js';

type Op = [string, ...(string | number)[]];

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function f64hex(x: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return hex(new Uint8Array(view.buffer));
}

function f32hex(x: number): string {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, x);
  return hex(new Uint8Array(view.buffer));
}

/** One op's result in the vectors' text form. */
function runOp(stream: Stream, op: Op): string {
  const [name, ...args] = op;
  switch (name) {
    case 'bytes':
      return hex(stream.bytes(args[0] as number));
    case 'bits':
      return String(stream.bits(args[0] as number));
    case 'below':
      return String(stream.below(BigInt(args[0]!)));
    case 'int':
      return String(stream.int(Number(args[0]), Number(args[1])));
    case 'bigint':
      return String(stream.bigint(BigInt(args[0]!), BigInt(args[1]!)));
    case 'bool':
      return String(stream.bool());
    case 'float64':
      return f64hex(stream.float64());
    case 'float32':
      return f32hex(stream.float32());
    case 'uniform':
      return f64hex(stream.uniform(args[0] as number, args[1] as number));
    case 'float64s':
      return hex(tensorBytes(stream.float64s(args[0] as number, args[1] as number, args[2] as number) as Tensor));
    case 'float32s':
      return hex(tensorBytes(stream.float32s(args[0] as number, args[1] as number, args[2] as number) as Tensor));
    case 'ints': {
      const type = args[0] as IntType;
      const big = type === 'i64' || type === 'u64';
      const range = args.length > 2 ? [big ? BigInt(args[2]!) : Number(args[2]), big ? BigInt(args[3]!) : Number(args[3])] : [];
      return hex(tensorBytes(stream.ints(type, args[1] as number, ...(range as [number, number])) as Tensor));
    }
    case 'shuffle':
      return stream.shuffle(Array.from({length: args[0] as number}, (_, i) => i)).join(',');
    case 'permutation':
      return Array.from(stream.permutation(args[0] as number)).join(',');
    case 'seek':
      stream.seek(args[0] as number);
      return '';
    default:
      throw new Error(`unknown op ${name}`);
  }
}

/** A run: a fresh stream for (spec, seed) and its ops in order. */
export interface Run {
  spec: string;
  seed: number;
  ops: Op[];
  results?: string[];
}

export function runAll(runs: Run[]): string[][] {
  return runs.map((run) => {
    const stream = new Stream(run.spec, run.seed);
    return run.ops.map((op) => runOp(stream, op));
  });
}

/** Random op lists from a small deterministic generator (xorshift), so failures reproduce. */
export function randomRuns(count: number, opsPerRun: number, seed = 1): Run[] {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  const pick = (n: number) => next() % n;
  const types: IntType[] = ['i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64'];
  const runs: Run[] = [];
  for (let r = 0; r < count; r++) {
    const ops: Op[] = [];
    for (let k = 0; k < opsPerRun; k++) {
      switch (pick(13)) {
        case 0:
          ops.push(['bytes', pick(100)]);
          break;
        case 1:
          ops.push(['bits', pick(200)]);
          break;
        case 2:
          ops.push(['below', String(BigInt(next()) * BigInt(next()) * BigInt(pick(3) === 0 ? next() : 1) + 1n)]);
          break;
        case 3: {
          const lo = pick(2) ? -pick(1e6) : pick(1000);
          ops.push(['int', String(lo), String(lo + pick(1e6))]);
          break;
        }
        case 4:
          ops.push(['bigint', String(-BigInt(next()) * BigInt(next())), String(BigInt(next()) ** 3n)]);
          break;
        case 5:
          ops.push(['bool']);
          break;
        case 6:
          ops.push(['float64']);
          break;
        case 7:
          ops.push(['float32']);
          break;
        case 8:
          ops.push(['uniform', -pick(100) / 8, pick(100) / 4 + 1]);
          break;
        case 9:
          ops.push(pick(2) ? ['float64s', pick(20), 0, 1] : ['float32s', pick(20), -pick(50), pick(50) + 1]);
          break;
        case 10: {
          const type = types[pick(8)]!;
          if (pick(2)) ops.push(['ints', type, pick(10)]);
          else ops.push(['ints', type, pick(10), type.startsWith('u') ? '0' : '-7', String(pick(100))]);
          break;
        }
        case 11:
          ops.push(['shuffle', pick(30)]);
          break;
        default:
          ops.push(['seek', pick(5000)]);
      }
    }
    runs.push({spec: `zoo/random-${r}@1.0.${pick(100)}`, seed: pick(3) === 0 ? next() * 1000 : pick(50), ops});
  }
  return runs;
}
