/**
 * A seeded generator of gate result packages for differential testing against
 * the reference: valid and invalid, unicode, huge and negative integers, every
 * float spelling, protocol mismatches, contract errors, duplicate keys, NaN,
 * JSON syntax errors, BOM, bad UTF-8, CRLF, missing files.
 */

/** xorshift128+ style PRNG over 32-bit halves (deterministic across platforms). */
class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    this.s0 = seed ^ 0x9e3779b9;
    this.s1 = Math.imul(seed, 0x85ebca6b) ^ 0xc2b2ae35;
    this.s2 = 0x27d4eb2f ^ (seed >>> 3);
    this.s3 = 0x165667b1;
    for (let i = 0; i < 20; i++) this.next();
  }

  /** A uniform 32-bit unsigned integer (xoshiro128**). */
  next(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + (this.next() % (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() / 2 ** 32 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  float(): number {
    return this.next() / 2 ** 32;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [items[i], items[j]] = [items[j] as T, items[i] as T];
    }
    return items;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** A JSON number written exactly as given. */
class Num {
  constructor(readonly text: string) {}
}

/** A JSON object as an ordered list of entries (duplicates allowed). */
class Obj {
  constructor(public entries: [string, Val][] = []) {}

  get(key: string): Val | undefined {
    return this.entries.find(([k]) => k === key)?.[1];
  }

  set(key: string, value: Val): void {
    const entry = this.entries.find(([k]) => k === key);
    if (entry) entry[1] = value;
    else this.entries.push([key, value]);
  }

  delete(key: string): void {
    this.entries = this.entries.filter(([k]) => k !== key);
  }
}

type Val = null | boolean | string | Num | Val[] | Obj;

const obj = (record: Record<string, Val>): Obj => new Obj(Object.entries(record));
const int = (n: number | bigint | string): Num => new Num(String(n));

// ---------------------------------------------------------------- serializing

interface Style {
  indent: string | null;
  space: string;
  escapeNonAscii: number;
  escapeAll: number;
}

function serializeString(text: string, rng: Rng, style: Style): string {
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += rng.chance(0.5) ? '\\\\' : '\\u005c';
    else if (ch === '/' && rng.chance(0.3)) out += '\\/';
    else if (cp < 0x20) {
      const short: Record<string, string> = {'\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f'};
      out += short[ch] && rng.chance(0.6) ? short[ch] : '\\u' + cp.toString(16).padStart(4, '0');
    } else if ((cp >= 0xd800 && cp <= 0xdfff) || (cp > 0x7f && rng.chance(style.escapeNonAscii)) || rng.chance(style.escapeAll)) {
      const units = cp > 0xffff ? [0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff)] : [cp];
      for (const u of units) {
        const h = u.toString(16).padStart(4, '0');
        out += '\\u' + (rng.chance(0.5) ? h : h.toUpperCase());
      }
    } else out += ch;
  }
  return out + '"';
}

/** Serialize a generated value with a random (but valid) layout. */
function serialize(value: Val, rng: Rng): string {
  const style: Style = {
    indent: rng.pick([null, '  ', '\t', ' ', '    ']),
    space: rng.pick(['', ' ', '  ', '\t']),
    escapeNonAscii: rng.pick([0, 0, 0.2, 1]),
    escapeAll: rng.pick([0, 0, 0.02]),
  };
  const write = (v: Val, level: number): string => {
    if (v === null) return 'null';
    if (v === true) return 'true';
    if (v === false) return 'false';
    if (typeof v === 'string') return serializeString(v, rng, style);
    if (v instanceof Num) return v.text;
    const items: string[] = Array.isArray(v)
      ? v.map((item) => write(item, level + 1))
      : v.entries.map(([k, item]) => serializeString(k, rng, style) + style.space + ':' + style.space + write(item, level + 1));
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (items.length === 0) return open + close;
    if (style.indent === null) return open + items.join(',' + style.space) + close;
    const pad = '\n' + style.indent.repeat(level + 1);
    return open + pad + items.join(',' + pad) + '\n' + style.indent.repeat(level) + close;
  };
  return write(value, 0) + (rng.chance(0.5) ? '\n' : '');
}

// ---------------------------------------------------------------- values

const WORDS = [
  'alpha',
  'Beta',
  'gamma',
  'delta',
  'ÉPSILON',
  'zeta',
  'ключ',
  '名前',
  '𝔘nicode',
  '\ue000private',
  '\uffefhalf',
  '😀smile',
  'Z',
  'a b',
  '__proto__',
  'constructor',
  '10',
  '2',
  'toString',
];
const PY_SPACE = [
  '\t',
  '\n',
  '\x0b',
  '\x0c',
  '\r',
  '\x1c',
  '\x1d',
  '\x1e',
  '\x1f',
  ' ',
  '\x85',
  '\xa0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
];
const NOT_SPACE = ['\ufeff', '\u200b', '\u180e', 'x'];
const FOLD_PAIRS: [string, string][] = [
  ['Refund Issued', 'refund   issued'],
  ['straße', 'STRASSE'],
  ['ẞ', 'ss'],
  ['ﬁle', 'FILE'],
  ['ſ', 'S'],
  ['\u212a', 'k'],
  ['İ', 'i̇'],
  ['ς', 'Σ'],
  ['Ǆ', 'ǆ'],
  ['𐐀', '𐐨'],
  ['\u1e9e\u3000x', 'SS X'],
  ['done\x1cnow', 'DONE NOW'],
  ['a\ufeffb', 'A B'],
  ['ﬀ', 'FF'],
  ['\u0345', 'ι'],
];

function word(rng: Rng): string {
  let text = rng.pick(WORDS);
  if (rng.chance(0.5)) text += '-' + rng.int(0, 999);
  return text;
}

function floatText(rng: Rng, value: number): string {
  const spellings = [
    String(value),
    value.toExponential(),
    value.toExponential().toUpperCase(),
    value.toExponential().replace('e+', 'e'),
    Number.isInteger(value) ? `${value}.0` : String(value),
    Number.isInteger(value) ? `${value}.000` : String(value) + '0',
    value.toFixed(12),
  ];
  return rng.pick(spellings);
}

/** A number with an unusual spelling or value. */
function weirdNumber(rng: Rng): Num {
  return new Num(
    rng.pick([
      '0',
      '-0',
      '-0.0',
      '0.0',
      '1e400',
      '-1e400',
      '-1e-400',
      '1e-400',
      '5e-324',
      '1E+2',
      '1e2',
      '100.0',
      '1e16',
      '10000000000000000',
      '9007199254740993',
      '9007199254740992.0',
      '0.1',
      '0.30000000000000004',
      '1.5',
      '-1',
      '2',
      '3e0',
      '1e-7',
      '1E-05',
      '123456789012345678901234567890',
      '-123456789012345678901234567890',
      '0.001',
      '0.0009999999999999999',
      '0.999',
      '0.9990000000000001',
      '100',
      '100000',
      '100001',
      '99',
      '1e5',
      '1' + '0'.repeat(400),
      '4' + '9'.repeat(4299),
      '1' + '0'.repeat(4300),
      '-' + '9'.repeat(4301),
      '1.7976931348623157e308',
      '2.2250738585072014e-308',
    ]),
  );
}

function weirdValue(rng: Rng): Val {
  switch (rng.int(0, 9)) {
    case 0:
      return rng.pick([true, false, null]);
    case 1:
    case 2:
      return weirdNumber(rng);
    case 3:
      return rng.pick(['', ' ', rng.pick(PY_SPACE), rng.pick(PY_SPACE) + rng.pick(PY_SPACE), rng.pick(NOT_SPACE), word(rng), '\ud800', 'a\udc00b', '\ud83d']);
    case 4:
      return rng.pick([[], [word(rng)], ['a', 'a'], ['a', ''], [int(1)], [null]]);
    case 5:
      return rng.pick([new Obj(), obj({a: int(1)})]);
    default:
      return rng.pick(['success', 'timeout', 'error', 'unknown', 'test', 'train', 'development', 'baseline', 'candidate', 'x', 'SUCCESS']);
  }
}

interface Package {
  spec: Obj;
  cases: Obj;
  results: Obj;
  candidate: string;
}

function protocol(rng: Rng): Obj {
  return obj({
    protocol_version: rng.pick(['agent-protocol-v1', 'v2', 'é']),
    environment_id: word(rng),
    toolset_id: word(rng),
    reset_policy: rng.pick(['fresh-per-trial', 'none']),
    max_steps: rng.chance(0.1) ? int('1' + '0'.repeat(rng.int(17, 200))) : int(rng.int(1, 100)),
    timeout_seconds: rng.chance(0.5) ? int(rng.int(1, 120)) : new Num(floatText(rng, rng.pick([30, 0.5, 0.001, 12.25, 1e16]))),
    retry_limit: int(rng.int(0, 3)),
    trial_count: int(rng.int(2, 5)),
  });
}

function cloneVal(v: Val): Val {
  if (Array.isArray(v)) return v.map(cloneVal);
  if (v instanceof Obj) return new Obj(v.entries.map(([k, x]) => [k, cloneVal(x)]));
  return v;
}

function rate(rng: Rng): Num {
  const value = rng.pick([0, 0.2, 0.25, 0.5, 0.6, 0.75, 0.8, 0.9, 1, 1 / 3, rng.float()]);
  if (rng.chance(0.2) && Number.isInteger(value)) return int(value);
  return new Num(floatText(rng, value));
}

function basePackage(rng: Rng): Package {
  const trialCount = rng.int(2, 5);
  const proto = protocol(rng);
  proto.set('trial_count', int(trialCount));
  const taskMin = rng.pick([0.5, 0.6, 0.8, 1, 0.2]);
  const critical = Math.min(1, taskMin + rng.pick([0, 0.1, 0.4]));
  const samples = rng.chance(0.8) ? rng.int(100, 600) : rng.int(600, 3000);
  const seedText = rng.pick([
    String(rng.int(0, 100000)),
    '-' + String(rng.int(1, 100000)),
    '0',
    String(2n ** 32n),
    String(2n ** 64n),
    '-' + String(2n ** 64n - 1n),
    String(2n ** 32n - 1n),
    '1' + Array.from({length: rng.int(20, 600)}, () => rng.int(0, 9)).join(''),
  ]);
  const baselineId = rng.pick(['baseline-v1', 'base', 'бейзлайн', '𝔅ase']);
  const candidateId = rng.pick(['candidate-pass', 'cand', 'c\u00e9', '\ue001cand', '😀']);
  const spec = obj({
    schema_version: 'agent-benchmark-spec-v1',
    benchmark_id: rng.pick(['bench', 'bench-ü', 'b/1']),
    benchmark_version: rng.pick(['1.0.0', '2']),
    private_test_frozen: true,
    claim: 'A claim.',
    target_population: 'Agents',
    baseline_system_id: baselineId,
    primary_metric: 'task_success_rate',
    protocol: proto,
    gates: obj({
      task_min_trial_success_rate: new Num(floatText(rng, taskMin)),
      min_primary_task_success_rate: rate(rng),
      critical_task_min_trial_success_rate: new Num(floatText(rng, critical)),
      min_final_state_trial_rate: rate(rng),
      min_side_effect_free_trial_rate: rate(rng),
      min_trial_stability_rate: rate(rng),
      max_slice_task_success_gap: rate(rng),
      max_mean_latency_ms: rng.chance(0.5) ? int(rng.int(500, 3000)) : new Num(floatText(rng, rng.int(500, 3000) + 0.5)),
      max_p95_latency_ms: int(rng.int(500, 4000)),
      max_mean_cost_units: new Num(floatText(rng, rng.pick([1, 1.5, 2, 0.3, 10]))),
      min_paired_delta_ci_low: new Num(floatText(rng, rng.pick([-1, -0.5, -0.2, 0, 0.1]))),
    }),
    bootstrap: obj({
      samples: int(samples),
      seed: new Num(seedText),
      confidence: new Num(floatText(rng, rng.pick([0.95, 0.9, 0.8, 0.999, 0.5, 0.99, 0.6827]))),
    }),
  });
  if (rng.chance(0.2)) spec.entries = rng.shuffle(spec.entries);

  const slices = Array.from({length: rng.int(1, 4)}, () => word(rng));
  const cases: Obj[] = [];
  const splits = ['train', 'development', 'test'];
  let counter = 0;
  for (const split of splits) {
    const count = split === 'test' ? rng.int(1, 7) : rng.int(1, 2);
    const families = Array.from({length: rng.int(1, count)}, (_, i) => `fam-${split}-${i}-${word(rng)}`);
    for (let i = 0; i < count; i++) {
      const [expected] = rng.pick(FOLD_PAIRS);
      cases.push(
        obj({
          id: `${split}-${counter++}-${rng.chance(0.3) ? word(rng) : 'case'}`,
          family_id: rng.pick(families),
          split,
          slice: rng.pick(slices),
          critical: rng.chance(0.4),
          task_type: 'lookup',
          is_private: split === 'test',
          initial_state: 'start',
          expected_final_state: expected,
          allowed_tools: rng.shuffle(['search', 'refund', 'email', 'lookup']).slice(0, rng.int(0, 4)),
          forbidden_side_effects: rng.shuffle(['delete', 'charge', 'leak']).slice(0, rng.int(0, 3)),
        }),
      );
    }
  }
  rng.shuffle(cases);
  const caseFile = obj({
    schema_version: 'agent-benchmark-cases-v1',
    benchmark_id: spec.get('benchmark_id') as string,
    benchmark_version: spec.get('benchmark_version') as string,
    dataset_version: rng.pick(['d1', 'dataset-2026']),
    cases,
  });

  const latencyStyle = rng.int(0, 3);
  const system = (id: string, role: string, quality: number): Obj => {
    const records: Obj[] = [];
    for (const c of cases) {
      if (c.get('split') !== 'test') continue;
      const expectedState = c.get('expected_final_state') as string;
      const pair = FOLD_PAIRS.find(([e]) => e === expectedState) as [string, string];
      for (let t = 1; t <= trialCount; t++) {
        const good = quality === 1 || rng.float() < quality;
        const latency =
          latencyStyle === 0
            ? int(rng.int(100, 3000))
            : latencyStyle === 1
              ? new Num(floatText(rng, Math.round(rng.float() * 300000) / 100))
              : latencyStyle === 2
                ? new Num(String(rng.float() * 3000))
                : rng.pick([int(0), new Num('0.0'), new Num('-0.0'), new Num('1e-320'), new Num('0.1'), new Num('0.7')]);
        records.push(
          obj({
            case_id: c.get('id') as string,
            trial_id: int(t),
            status: good ? 'success' : rng.pick(['success', 'timeout', 'error', 'unknown']),
            final_state: good ? rng.pick(pair) : rng.pick([null, 'wrong', pair[1] + 'x']),
            side_effects: good || rng.chance(0.5) ? [] : ['charge'],
            tools_used: ((c.get('allowed_tools') as string[]).slice(0, good ? 1 : 4) as Val[]).concat(good || rng.chance(0.6) ? [] : ['shell']),
            latency_ms: latency,
            cost_units: new Num(floatText(rng, rng.pick([0.1, 0.2, 0.25, 1, 1.5, 0.3, 2.75]))),
          }),
        );
      }
    }
    return obj({system_id: id, role, protocol: cloneVal(proto) as Obj, records: rng.chance(0.5) ? rng.shuffle(records) : records});
  };
  const candidateQuality = rng.pick([1, 1, 0.97, 0.9, rng.float()]);
  if (candidateQuality >= 0.9 && rng.chance(0.5)) {
    // Lenient gates so that PASS and REVIEW outcomes are common too.
    const gates = spec.get('gates') as Obj;
    for (const key of ['min_primary_task_success_rate', 'min_final_state_trial_rate', 'min_side_effect_free_trial_rate', 'min_trial_stability_rate']) {
      gates.set(key, new Num(rng.pick(['0.0', '0', '0.1', '1e-1', '0.5'])));
    }
    gates.set('task_min_trial_success_rate', new Num('0.5'));
    gates.set('critical_task_min_trial_success_rate', new Num(rng.pick(['0.5', '0.6'])));
  }
  const systems = [system(baselineId, 'baseline', rng.float()), system(candidateId, 'candidate', candidateQuality)];
  if (rng.chance(0.5)) systems.reverse();
  const results = obj({
    schema_version: 'agent-benchmark-results-v1',
    benchmark_id: spec.get('benchmark_id') as string,
    benchmark_version: spec.get('benchmark_version') as string,
    dataset_version: caseFile.get('dataset_version') as string,
    result_set_version: 'r1',
    systems,
  });
  return {spec, cases: caseFile, results, candidate: candidateId};
}

/** Every container slot in a value: [parent, key-or-index]. */
function slots(v: Val, out: [Obj | Val[], string | number][] = []): [Obj | Val[], string | number][] {
  if (Array.isArray(v)) v.forEach((item, i) => (out.push([v, i]), slots(item, out)));
  else if (v instanceof Obj) for (const [k, item] of v.entries) out.push([v, k]), slots(item, out);
  return out;
}

function mutateValue(rng: Rng, pkg: Package): void {
  const doc = rng.pick([pkg.spec, pkg.spec, pkg.cases, pkg.results, pkg.results]);
  const all = slots(doc);
  const [parent, key] = rng.pick(all);
  const op = rng.int(0, 9);
  if (parent instanceof Obj) {
    const k = key as string;
    if (op <= 4) parent.set(k, weirdValue(rng));
    else if (op === 5) parent.delete(k);
    else if (op === 6) parent.entries.push([rng.pick(['extra', k + 'x', '😀', '\ue000', '\ud800', 'a\nb', "q'", '\x85', 'k\u0000']), weirdValue(rng)]);
    else if (op === 7) parent.entries.push([k, rng.chance(0.5) ? (parent.get(k) as Val) : weirdValue(rng)]);
    else parent.set(k, rng.pick([[], new Obj(), null, 'x']));
  } else {
    const i = key as number;
    if (op <= 4) parent[i] = weirdValue(rng);
    else if (op <= 6) parent.splice(i, 1);
    else parent.push(cloneVal(parent[i] as Val));
  }
}

/** Targeted edits that reach the deeper checks (the generic mutation rarely gets past the first). */
function targeted(rng: Rng, pkg: Package): void {
  const systems = pkg.results.get('systems') as Obj[];
  const system = rng.pick(systems);
  const records = system.get('records') as Obj[];
  const cases = pkg.cases.get('cases') as Obj[];
  const testCases = cases.filter((c) => c.get('split') === 'test');
  switch (rng.int(0, 17)) {
    case 0: {
      // protocol mismatch, with equal and unequal spellings
      const proto = system.get('protocol') as Obj;
      const key = rng.pick(['max_steps', 'timeout_seconds', 'retry_limit', 'trial_count', 'protocol_version', 'environment_id']);
      const current = proto.get(key);
      if (current instanceof Num && /^\d+$/.test(current.text)) {
        proto.set(key, new Num(rng.pick([current.text + '.0', current.text + 'e0', String(BigInt(current.text) + 1n), '1e16'])));
      } else if (typeof current === 'string') proto.set(key, rng.pick([current + ' ', 'other\n', "it's", 'say "hi"', '\x07bell', '\u0378']));
      else proto.set(key, weirdNumber(rng));
      break;
    }
    case 1:
      pkg.spec.set('protocol', obj({...Object.fromEntries((pkg.spec.get('protocol') as Obj).entries), max_steps: new Num('10000000000000000')}));
      for (const s of systems) (s.get('protocol') as Obj).set('max_steps', new Num(rng.pick(['1e16', '1.0e16', '10000000000000001', '9999999999999999.0'])));
      break;
    case 2:
      pkg.candidate = rng.pick([pkg.spec.get('baseline_system_id') as string, 'nope', '', ' ', 'candidate-pass']);
      break;
    case 3:
      if (records.length) records.push(cloneVal(rng.pick(records)) as Obj);
      break;
    case 4:
      if (records.length) records.splice(rng.int(0, records.length - 1), 1);
      break;
    case 5:
      if (records.length) rng.pick(records).set('trial_id', new Num(rng.pick(['99', '0', '1.0', '-1', '123456789012345678901234567890', 'true'])));
      break;
    case 6:
      if (records.length) rng.pick(records).set('case_id', rng.pick(['ghost', cases[0]?.get('id') as string, '😀', '\ue000x']));
      break;
    case 7:
      systems.push(cloneVal(system) as Obj);
      if (rng.chance(0.5)) (systems[systems.length - 1] as Obj).set('system_id', 'third');
      break;
    case 8:
      system.set('role', rng.pick(['baseline', 'candidate', 'Baseline', ' ']));
      break;
    case 9:
      if (cases.length > 1) (cases[1] as Obj).set('id', (cases[0] as Obj).get('id') as string);
      break;
    case 10:
      if (cases.length > 1) (cases[1] as Obj).set('family_id', (cases[0] as Obj).get('family_id') as string);
      break;
    case 11: {
      const split = rng.pick(['train', 'development', 'test']);
      pkg.cases.set(
        'cases',
        cases.filter((c) => c.get('split') !== split),
      );
      break;
    }
    case 12:
      rng.pick(cases).set(rng.pick(['allowed_tools', 'forbidden_side_effects']), rng.pick([['a', 'a'], ['a', ' '], 'a', [int(1)]]));
      break;
    case 13: {
      const gates = pkg.spec.get('gates') as Obj;
      gates.set(rng.pick(['critical_task_min_trial_success_rate', 'task_min_trial_success_rate', 'min_paired_delta_ci_low']), weirdNumber(rng));
      break;
    }
    case 14:
      (pkg.spec.get('bootstrap') as Obj).set(rng.pick(['samples', 'seed', 'confidence']), weirdNumber(rng));
      break;
    case 15:
      if (testCases.length)
        rng
          .pick(testCases)
          .set(rng.pick(['expected_final_state', 'slice', 'family_id', 'id']), rng.pick(['\ud800', 'x\udc00\ud800y', '\ud83d\ude00', '\udbff']));
      break;
    case 16:
      pkg.results.set(rng.pick(['benchmark_id', 'dataset_version', 'benchmark_version']), 'mismatch');
      break;
    default:
      if (records.length) rng.pick(records).set(rng.pick(['latency_ms', 'cost_units', 'status', 'final_state']), weirdValue(rng));
  }
}

/** Text-level damage: syntax errors, constants, BOM, newlines. */
function mutateText(rng: Rng, text: string): string {
  const at = rng.int(0, text.length);
  switch (rng.int(0, 13)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return (
        text.slice(0, at) + rng.pick([',', '}', ']', '"', ':', '\\', 'x', '\x01', ' ', '{', '[', '-', '0', '.', 'e', 'nul', 'tru', 'N', 'I']) + text.slice(at)
      );
    case 2:
      return text.slice(0, at) + text.slice(at + 1);
    case 3:
      return '\ufeff' + text;
    case 4:
      return text.replace(/\n/g, '\r\n');
    case 5:
      return text.replace(/\n/g, '\r');
    case 6:
      return text.replace(/(:\s*)(-?\d[\d.eE+-]*)/, (_m, a: string) => a + rng.pick(['NaN', 'Infinity', '-Infinity', 'nan', '-NaN', 'Infinityx']));
    case 7:
      return text.replace(/\]/, ',]');
    case 8:
      return text.replace(/\}/, ',}');
    case 9:
      return text.replace(
        /"([^"\\]{1,8})"/,
        (_m, s: string) =>
          '"' +
          s +
          rng.pick([
            '\\x41',
            '\\u12',
            '\\uZZZZ',
            '\\ud800\\u12',
            '\\ud800\\uZZZZ',
            '\\ud800\\udc00',
            '\\ud800\\ud800',
            '\\',
            '\\a',
            '\t',
            '\x7f',
            '\r',
            '\x00',
            '\u2028',
          ]) +
          '"',
      );
    case 10:
      return text + rng.pick([' x', '{}', '\n\n  ]', '\x00']);
    case 11:
      return text.replace(/,/, rng.pick([' ,', ',,', '']));
    case 13:
      return rng.pick(['[', '{"a":']).repeat(rng.pick([500, 991, 992, 995])) + '1';
    default:
      return rng.pick(['', ' ', '\n', 'null', '[]', '{}', '"x"', '1', '{"a": 1, "a": 2}', '[1, 2', '{"a" 1}', '{a: 1}', '\ufeff{}']);
  }
}

function encodeUtf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Damage bytes so that they are not valid UTF-8. */
function badUtf8(rng: Rng, bytes: Uint8Array): Uint8Array {
  const bad = rng.pick([
    [0xff],
    [0x80],
    [0xc3],
    [0xc3, 0x28],
    [0xe2, 0x82],
    [0xe2, 0x28, 0xa1],
    [0xed, 0xa0, 0x80],
    [0xf0, 0x9f, 0x98],
    [0xf0, 0x28, 0x8c, 0xbc],
    [0xf4, 0x90, 0x80, 0x80],
    [0xc0, 0xaf],
    [0xe0, 0x80, 0xaf],
    [0xf5],
    [0xf0, 0x9f, 0x98, 0x28],
  ]);
  const at = rng.chance(0.3) ? bytes.length : rng.int(0, bytes.length);
  const out = new Uint8Array(bytes.length + bad.length);
  out.set(bytes.subarray(0, at));
  out.set(bad, at);
  out.set(bytes.subarray(at), at + bad.length);
  return out;
}

/** One generated test: files to write (null = a folder) and the arguments. */
export interface GeneratedCase {
  name: string;
  files: Record<string, Uint8Array | null>;
  argv: string[];
}

/** Generate `count` packages from `seed`. */
export function generatePackages(seed: number, count: number): GeneratedCase[] {
  const out: GeneratedCase[] = [];
  for (let n = 0; n < count; n++) {
    const rng = new Rng(seed * 1_000_003 + n);
    const pkg = basePackage(rng);
    const kind = rng.int(0, 99);
    const kinds: string[] = [];
    if (kind < 25) kinds.push('valid');
    else if (kind < 50) {
      kinds.push('targeted');
      targeted(rng, pkg);
      if (rng.chance(0.3)) targeted(rng, pkg);
    } else if (kind < 75) {
      kinds.push('value');
      mutateValue(rng, pkg);
      if (rng.chance(0.3)) mutateValue(rng, pkg);
    } else kinds.push('text');
    const names = {spec: 'spec.json', cases: 'cases.json', results: 'results.json'};
    const defaults = rng.chance(0.1);
    if (defaults) Object.assign(names, {spec: 'benchmark_spec.json', cases: 'benchmark_cases.json', results: 'benchmark_results_pass.json'});
    const files: Record<string, Uint8Array | null> = {};
    const docs: [keyof typeof names, Obj][] = [
      ['spec', pkg.spec],
      ['cases', pkg.cases],
      ['results', pkg.results],
    ];
    const damaged = rng.pick(docs)[0];
    for (const [which, value] of docs) {
      let text = serialize(value, rng);
      if (kind >= 75 && which === damaged) text = mutateText(rng, text);
      let bytes = encodeUtf8(text);
      if (kind >= 75 && which === damaged && rng.chance(0.15)) bytes = badUtf8(rng, bytes);
      files[names[which]] = bytes;
    }
    if (rng.chance(0.04)) {
      const which = rng.pick(docs)[0];
      if (rng.chance(0.5)) delete files[names[which]];
      else files[names[which]] = null;
      kinds.push('os');
    }
    let argv: string[] = [];
    if (!defaults || rng.chance(0.5)) {
      const prefix = rng.pick(['', '', './', './/', 'sub/../']);
      argv = ['--spec', prefix + names.spec, '--cases', names.cases, '--results', names.results];
      if (prefix === 'sub/../') files['sub/.keep'] = new Uint8Array();
    }
    if (!defaults || rng.chance(0.5) || pkg.candidate !== 'candidate-pass') argv.push('--candidate', pkg.candidate);
    out.push({name: `${String(n).padStart(5, '0')}-${kinds.join('+')}`, files, argv});
  }
  return out;
}
