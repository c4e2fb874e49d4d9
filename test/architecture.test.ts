/**
 * docs/architecture.md, checked against the code: the import graph of lib/ and cli/ (imports and
 * re-exports, dynamic imports, worker and child-process starts) has no circle, between files or
 * between folders, and no edge up or across a level (no exception), lib/ never imports cli/, only the listed library files print, and only the listed
 * files set the exit code, and no file or function is longer than the limits (rule g, measured on
 * TypeScript's own syntax tree). Plain reads and regexes otherwise; the checkers are pure functions,
 * and the last block feeds them broken input to show that each one fails.
 */
import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';
import {describe, expect, it} from 'vitest';

/** The levels bottom to top, as the table of docs/architecture.md: a unit imports only from lower levels. */
const levels: readonly (readonly string[])[] = [
  ['lib/*.ts'],
  ['lib/gate', 'lib/stats', 'lib/sandbox'],
  ['lib/bundle'],
  ['lib/benchmark', 'lib/ledger'],
  ['lib/zoo'],
  ['lib/import'],
  ['lib/eval', 'lib/report'],
  ['lib/probe', 'lib/compare', 'lib/doctor'],
  ['lib/run'],
  ['lib/mcp'],
  ['lib/index.ts', 'cli'],
];

/** The library files that print (rule c), each with its reason. */
const printers: Readonly<Record<string, string>> = {
  'lib/mcp/sealed-run.ts': "submit_test without a verdict: the reason on the run's log (or the server's stderr), for its owner",
  'lib/mcp/runner.ts': "a run's process: why it failed, on its log (its stderr, a file in the zoo's .arbor/), for the owner",
};

/** The files that set process.exitCode (rule d): the one mapping, and two that pass a code through. */
const exitCodeSetters: Readonly<Record<string, string>> = {
  'cli/exit.ts': 'the one place errors map to exit codes',
  'cli/commands/benchmark-gate.ts': "the gate's own exit codes, as the reference program's",
  'lib/run/eval-process.ts': "rerunWithoutSecrets passes the re-run child's exit code through",
};

/** Rule g: no source file under lib/ or cli/ over this many lines, no function over `maxFunctionLines`. */
const maxFileLines = 600;
const maxFunctionLines = 100;

/**
 * Files and functions allowed over the limits while a split is under way on a branch; empty on
 * main. An entry that is no longer over its limit fails the test, so the list cannot outlive a split.
 */
const oversizeInProgress: readonly string[] = [];

type Kind = 'static' | 'dynamic' | 'start';

interface Specifier {
  specifier: string;
  kind: Kind;
  line: number;
}

interface Edge {
  from: string;
  to: string;
  kind: Kind;
  line: number;
}

const patterns: readonly [RegExp, Kind][] = [
  [/\b(?:import|export)\b[^;'"`()]*?\bfrom\s*(['"])([^'"]+)\1/g, 'static'],
  [/\bimport\s*(['"])([^'"]+)\1/g, 'static'],
  [/\bimport\s*\(\s*(['"`])([^'"`$]+)\1\s*\)/g, 'dynamic'],
  [/\bnew\s+URL\(\s*(['"`])([^'"`$]+)\1\s*,\s*import\.meta\.url\s*\)/g, 'start'],
];

/** Comments that start a line, blanked (newlines kept, so line numbers stay right). */
function withoutComments(text: string): string {
  const blank = (comment: string) => comment.replace(/[^\n]/g, ' ');
  return text.replace(/^[ \t]*\/\*[\s\S]*?\*\//gm, blank).replace(/^[ \t]*\/\/.*$/gm, blank);
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Every module specifier a source names: imports, re-exports, dynamic imports, worker and child starts. */
function specifiers(source: string): Specifier[] {
  const text = withoutComments(source);
  const found: Specifier[] = [];
  for (const [pattern, kind] of patterns) {
    for (const match of text.matchAll(pattern)) found.push({specifier: match[2] ?? '', kind, line: lineAt(text, match.index)});
  }
  return found.sort((a, b) => a.line - b.line);
}

/** The graph's edges between the given files; relative `.js` specifiers that name no file come back as unresolved. */
function edgesOf(sources: ReadonlyMap<string, string>): {edges: Edge[]; unresolved: string[]} {
  const edges: Edge[] = [];
  const unresolved: string[] = [];
  for (const [file, source] of sources) {
    for (const {specifier, kind, line} of specifiers(source)) {
      if (!specifier.startsWith('.') || !specifier.endsWith('.js')) continue;
      const to = path.posix.join(path.posix.dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (sources.has(to)) edges.push({from: file, to, kind, line});
      else unresolved.push(`${file}:${line} ${specifier}`);
    }
  }
  return {edges, unresolved};
}

/** A circle of imports as a path (its first file again at the end), or null. */
function findCycle(edges: readonly Edge[]): string[] | null {
  const next = new Map<string, string[]>();
  for (const {from, to} of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | null => {
    state.set(file, 'open');
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (state.get(to) === 'open') return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const cycle = visit(to);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of [...next.keys()].sort()) {
    if (state.has(file)) continue;
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return null;
}

/** The unit a file belongs to: a folder of lib/, lib's top-level helpers, lib/index.ts, or cli. */
function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'cli') return 'cli';
  if (parts.length === 2) return file === 'lib/index.ts' ? file : 'lib/*.ts';
  return `${parts[0]}/${parts[1]}`;
}

/** The graph between units: one edge per pair of units a file edge joins (the first such file edge), none inside a unit. */
function unitEdges(edges: readonly Edge[]): Edge[] {
  const joined = new Map<string, Edge>();
  for (const edge of edges) {
    const [from, to] = [unitOf(edge.from), unitOf(edge.to)];
    if (from !== to && !joined.has(`${from} ${to}`)) joined.set(`${from} ${to}`, {...edge, from, to});
  }
  return [...joined.values()];
}

/** Every edge that goes up a level or across to another unit of the same level, and every file in no level. */
function layerViolations(edges: readonly Edge[], table: readonly (readonly string[])[]): string[] {
  const levelOf = new Map(table.flatMap((units, level) => units.map((unit) => [unit, level] as const)));
  const found = new Set<string>();
  for (const {from, to, kind, line} of edges) {
    const [a, b] = [unitOf(from), unitOf(to)];
    const [la, lb] = [levelOf.get(a), levelOf.get(b)];
    for (const unit of [a, b]) if (!levelOf.has(unit)) found.add(`${unit} is on no level of the table (add it to levels and docs/architecture.md)`);
    if (a === b || la === undefined || lb === undefined || lb < la) continue;
    const way = lb > la ? 'up' : 'across';
    found.add(`${from}:${line} (${a}, level ${la}) imports ${to} (${b}, level ${lb}): ${kind} edge ${way} a level`);
  }
  return [...found].sort();
}

const printing = /\bconsole\.|\bprocess\.(?:stdout|stderr)\.write\b|\bwriteSync\(\s*[12]\s*,/g;
const settingExitCode = /\bprocess\.exitCode\s*[-+*/|&?]*=(?!=)/g;
const exiting = /\bprocess\.exit\s*\(/g;

/** Where a pattern occurs in the given sources, comments aside, as `file:line`. */
function occurrences(sources: ReadonlyMap<string, string>, pattern: RegExp): string[] {
  const found: string[] = [];
  for (const [file, source] of sources) {
    const text = withoutComments(source);
    for (const match of text.matchAll(pattern)) found.push(`${file}:${lineAt(text, match.index)}`);
  }
  return found;
}

/** Folders entered through one file only (rules f and h): an edge from outside the folder reaches that file alone. */
const doors: Readonly<Record<string, string>> = {
  'lib/sandbox': 'lib/sandbox/index.ts',
  'lib/eval': 'lib/eval/index.ts',
};

/** Every edge from outside a door's folder to a file of it other than its door. */
function pastDoors(edges: readonly Edge[], table: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const {from, to, kind, line} of edges) {
    for (const [folder, door] of Object.entries(table)) {
      if (to.startsWith(`${folder}/`) && !from.startsWith(`${folder}/`) && to !== door)
        found.push(`${from}:${line} imports ${to} (${kind}): import ${door} instead`);
    }
  }
  return found.sort();
}

/** A function's name as people look it up: its own, else the variable or property it is assigned to, else its line. */
function functionName(node: ts.FunctionLikeDeclaration, line: number): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) return parent.name.getText();
  return `<anonymous at line ${line}>`;
}

/**
 * The files over `maxFileLines` lines (`file`) and the functions over `maxFunctionLines` (`file name`),
 * each with its length. A function's lines run from its first token (its doc comment aside) to its
 * last: declarations, methods, arrow functions and function expressions, nested ones counted on their own.
 */
function oversize(sources: ReadonlyMap<string, string>): Map<string, number> {
  const found = new Map<string, number>();
  for (const [file, text] of sources) {
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    if (lines > maxFileLines) found.set(file, lines);
    const tree = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && node.body) {
        const first = tree.getLineAndCharacterOfPosition(node.getStart()).line;
        const length = tree.getLineAndCharacterOfPosition(node.end).line - first + 1;
        if (length > maxFunctionLines) found.set(`${file} ${functionName(node, first + 1)}`, length);
      }
      ts.forEachChild(node, visit);
    };
    visit(tree);
  }
  return found;
}

/** Rule f's findings: what is over a limit and not listed, and what is listed but no longer over (or gone). */
function sizeViolations(found: ReadonlyMap<string, number>, listed: readonly string[]): string[] {
  const limitOf = (key: string) => (key.includes(' ') ? `${maxFunctionLines} (function)` : `${maxFileLines} (file)`);
  const over = [...found].filter(([key]) => !listed.includes(key)).map(([key, lines]) => `${key}: ${lines} lines, over ${limitOf(key)}: split it by concern`);
  const stale = listed
    .filter((key) => !found.has(key))
    .map((key) => `${key}: listed in oversizeInProgress but no longer over ${limitOf(key)}: remove it from the list`);
  return [...over, ...stale].sort();
}

const filesOf = (places: readonly string[]) => [...new Set(places.map((place) => place.split(':')[0]))].sort();

const root = fileURLToPath(new URL('..', import.meta.url));

function sourcesUnder(folder: string): [string, string][] {
  return readdirSync(path.join(root, folder), {recursive: true, encoding: 'utf8'})
    .map((name) => `${folder}/${name.split(path.sep).join('/')}`)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => [file, readFileSync(path.join(root, file), 'utf8')]);
}

const sources = new Map([...sourcesUnder('lib'), ...sourcesUnder('cli')].sort(([a], [b]) => a.localeCompare(b)));
const {edges, unresolved} = edgesOf(sources);
const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

describe('the import graph of lib/ and cli/', () => {
  it('is read whole: every relative import resolves, worker and child-process starts included', () => {
    expect(unresolved).toEqual([]);
    expect(sources.size).toBeGreaterThan(150);
    const starts = edges.filter(({kind}) => kind === 'start').map(({from, to}) => `${from} -> ${to}`);
    expect(starts).toContain('lib/zoo/list-thread.ts -> lib/zoo/list-driver.ts');
    expect(starts).toContain('lib/run/eval-process.ts -> lib/run/eval-child.ts');
    expect(edges.some(({kind}) => kind === 'dynamic')).toBe(true);
  });

  it('has no import circle (rule a)', () => {
    const cycle = findCycle(edges);
    expect(cycle, `import circle: ${cycle?.join(' -> ')}`).toBeNull();
  });

  it('imports only down a level, with no exception (rule b)', () => {
    expect(layerViolations(edges, levels)).toEqual([]);
    expect(doc).toMatch(/b\. \*\*No import goes up a level\*\*[^\n]*no exception/);
  });

  it('has no loop between folders (rule b)', () => {
    const loop = findCycle(unitEdges(edges));
    expect(loop, `loop between folders: ${loop?.join(' -> ')}`).toBeNull();
  });

  it('never imports cli/ from lib/', () => {
    expect(edges.filter(({from, to}) => from.startsWith('lib/') && to.startsWith('cli/')).map(({from, to}) => `${from} -> ${to}`)).toEqual([]);
  });

  it('has the same levels as the table of docs/architecture.md', () => {
    const rows = [...doc.matchAll(/^\| (\d+) \| `([^`]+)` \|/gm)].map(([, level, unit]) => `${level} ${unit}`);
    expect(rows).toEqual(levels.flatMap((units, level) => units.map((unit) => `${level} ${unit}`)));
  });
});

describe('doors into a folder (rules f and h)', () => {
  it('nothing outside lib/sandbox or lib/eval imports a file of it other than its index.ts, types and dynamic imports included', () => {
    expect(pastDoors(edges, doors)).toEqual([]);
    for (const [folder, door] of Object.entries(doors)) {
      expect(
        edges.some(({from, to}) => to === door && !from.startsWith(`${folder}/`)),
        `nothing imports ${door}`,
      ).toBe(true);
      expect(doc).toContain(`\`${door}\``);
    }
  });
});

describe('printing and exit codes', () => {
  const lib = new Map([...sources].filter(([file]) => file.startsWith('lib/')));

  it('the library prints only in the listed files (rule c)', () => {
    expect(filesOf(occurrences(lib, printing))).toEqual(Object.keys(printers).sort());
    for (const file of Object.keys(printers)) expect(doc).toContain(`\`${file}\``);
  });

  it('sets process.exitCode only in cli/exit.ts and the listed files, and never calls process.exit (rule d)', () => {
    expect(filesOf(occurrences(sources, settingExitCode))).toEqual(Object.keys(exitCodeSetters).sort());
    expect(occurrences(sources, exiting)).toEqual([]);
    for (const file of Object.keys(exitCodeSetters)) expect(doc).toContain(`\`${file}\``);
  });
});

describe('one door per decision (rule e)', () => {
  it('routes secrets in lib/run/door.ts alone: no other file asks whether the environment holds one, and cli/ never reads lib/secrets.ts', () => {
    const asking = [...sources].filter(([file, text]) => file !== 'lib/secrets.ts' && /\bholdsSecret\(/.test(text)).map(([file]) => file);
    expect(asking).toEqual(['lib/run/door.ts']);
    expect(edges.filter(({from, to}) => from.startsWith('cli/') && to === 'lib/secrets.ts').map(({from}) => from)).toEqual([]);
    expect(doc).toContain('`lib/run/door.ts`');
  });
});

/**
 * Rule i: the files that read plan.toml (call loadPlan), each with why. A caller that starts an eval reads it once
 * and hands the parsed plan on; a new reader needs a reason here (test/eval/plan-once-callers.test.ts counts the reads).
 */
const planReaders: Record<string, string> = {
  'cli/commands/benchmark-compare.ts': '--package: refuses a package that cannot be made, then hands the plan to the door',
  'cli/commands/mcp.ts': "the server's start: which entries are locked (runs nothing)",
  'lib/benchmark/lock.ts': 'computeLock without a plan (lock, verify)',
  'lib/compare/compare.ts': 'runComparePlanned when no caller read it',
  'lib/eval/pipeline.ts': 'readRequest when no caller read it',
  'lib/mcp/catalog.ts': 'list_benchmarks, get_benchmark (run nothing)',
  'lib/mcp/context.ts': "the path rule: each entry's test data folder",
  'lib/mcp/evaluate.ts': "the call's snapshot; the plan goes with the run's request",
  'lib/mcp/run-request.ts': 'a run whose request brings none (evaluate by name alone)',
  'lib/mcp/workspace.ts': 'checkout (runs nothing)',
  'lib/probe/battery.ts': 'verify --probe',
  'lib/probe/checker.ts': 'verify --probe',
  'lib/run/eval-child.ts': 'a request the parent could not read the plan for: the child says why',
  'lib/run/eval-process.ts': "the door's parent, before its secret-free child starts",
  'lib/run/job.ts': "the submitter's job, the worker's checks (its digest against the job's)",
  'lib/run/result.ts': 'recordReport called without a plan (library API)',
  'lib/zoo/checkout.ts': 'checkout (runs nothing)',
  'lib/zoo/lock.ts': 'lock (runs nothing)',
};

describe('one request per eval (rule i)', () => {
  it('reads plan.toml only in the listed files, each for its reason', () => {
    expect(doc).toContain('i. **One request per eval.**');
    const readers = [...sources].filter(([file, text]) => file !== 'lib/benchmark/plan.ts' && /\bloadPlan\(/.test(withoutComments(text))).map(([file]) => file);
    expect(readers.sort()).toEqual(Object.keys(planReaders).sort());
  });
});

/** A cast through `unknown` or to `never`, which silences the checker instead of saying why (rule j). */
const blindCast = /\bas\s+(?:unknown\s+as\b|never\b)/g;

describe('casts that say why (rule j)', () => {
  it('lib/ has no `as unknown as` and no `as never` outside comments', () => {
    expect(doc).toContain('j. **Casts that say why.**');
    const lib = new Map([...sources].filter(([file]) => file.startsWith('lib/')));
    expect(occurrences(lib, blindCast)).toEqual([]);
  });
});

describe('size (rule g)', () => {
  it(`has no file under lib/ or cli/ over ${maxFileLines} lines and no function over ${maxFunctionLines}`, () => {
    expect(sizeViolations(oversize(sources), oversizeInProgress)).toEqual([]);
    expect(doc).toMatch(/g\. \*\*No file over 600 lines, no function over 100\*\*/);
  });
});

describe('one way into the eval (rule h)', () => {
  it('index.ts loads no runner of an eval up front: the pipeline and calibrate come with their first call', () => {
    expect(doc).toContain('h. **One way into the eval.**');
    // Loaded with the index: its static imports and re-exports but those of types alone, which the build erases.
    const index = withoutComments(sources.get('lib/eval/index.ts')!);
    const eager = [...index.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s*'\.\/([^']+)\.js'/gm)].map(([, name]) => `lib/eval/${name}.ts`);
    expect(eager).toContain('lib/eval/score.ts');
    expect(eager).not.toContain('lib/eval/pipeline.ts');
    expect(eager).not.toContain('lib/eval/calibrate.ts');
    expect(eager).not.toContain('lib/eval/point.ts');
  });
});

describe('the checkers catch a broken graph', () => {
  const edge = (from: string, to: string, kind: Kind = 'static'): Edge => ({from, to, kind, line: 1});

  it('reads every kind of edge, and not a commented one', () => {
    const source = [
      "import {a} from './a.js';",
      "import type {B} from '../b/b.js';",
      "export * from './c.js';",
      "import './d.js';",
      '// import {e} from "./e.js";',
      "/** import('./f.js') */",
      "const g = await import('./g.js');",
      "const worker = new Worker(new URL('./h.js', import.meta.url), {});",
      "import {x} from 'node:fs';",
    ].join('\n');
    expect(specifiers(source).map(({specifier, kind}) => `${kind} ${specifier}`)).toEqual([
      'static ./a.js',
      'static ../b/b.js',
      'static ./c.js',
      'static ./d.js',
      'dynamic ./g.js',
      'start ./h.js',
      'static node:fs',
    ]);
  });

  it('finds a circle closed by a worker start, with its path', () => {
    const graph = [edge('lib/x/a.ts', 'lib/x/b.ts'), edge('lib/x/b.ts', 'lib/x/c.ts', 'dynamic'), edge('lib/x/c.ts', 'lib/x/a.ts', 'start')];
    expect(findCycle(graph)).toEqual(['lib/x/a.ts', 'lib/x/b.ts', 'lib/x/c.ts', 'lib/x/a.ts']);
    expect(findCycle(graph.slice(0, 2))).toBeNull();
  });

  it('names both files of an edge up or across a level, and a unit on no level', () => {
    const table = [['lib/*.ts'], ['lib/x', 'lib/y'], ['cli']];
    const graph = [
      edge('lib/errors.ts', 'lib/x/a.ts'),
      edge('lib/x/a.ts', 'cli/main.ts', 'dynamic'),
      edge('lib/x/a.ts', 'lib/y/b.ts'),
      edge('lib/x/a.ts', 'lib/x/c.ts'),
      edge('cli/main.ts', 'lib/x/a.ts'),
      edge('lib/x/a.ts', 'lib/errors.ts'),
      edge('lib/z/d.ts', 'lib/errors.ts'),
    ];
    expect(layerViolations(graph, table)).toEqual([
      'lib/errors.ts:1 (lib/*.ts, level 0) imports lib/x/a.ts (lib/x, level 1): static edge up a level',
      'lib/x/a.ts:1 (lib/x, level 1) imports cli/main.ts (cli, level 2): dynamic edge up a level',
      'lib/x/a.ts:1 (lib/x, level 1) imports lib/y/b.ts (lib/y, level 1): static edge across a level',
      'lib/z is on no level of the table (add it to levels and docs/architecture.md)',
    ]);
  });

  it('finds a loop between folders that no circle of files closes', () => {
    const graph = [
      edge('lib/x/a.ts', 'lib/y/b.ts'),
      edge('lib/y/c.ts', 'lib/z/d.ts', 'dynamic'),
      edge('lib/z/d.ts', 'lib/x/e.ts'),
      edge('lib/x/a.ts', 'lib/x/e.ts'),
    ];
    expect(findCycle(graph)).toBeNull();
    expect(findCycle(unitEdges(graph))).toEqual(['lib/x', 'lib/y', 'lib/z', 'lib/x']);
    expect(findCycle(unitEdges(graph.slice(0, 2)))).toBeNull();
  });

  it('names an edge past a door, of any kind, and not one from inside the folder', () => {
    const table = {'lib/x': 'lib/x/index.ts'};
    const graph = [
      edge('lib/y/a.ts', 'lib/x/index.ts'),
      edge('lib/y/a.ts', 'lib/x/deep.ts', 'dynamic'),
      edge('cli/b.ts', 'lib/x/deep.ts'),
      edge('lib/x/index.ts', 'lib/x/deep.ts'),
      edge('lib/xy/c.ts', 'lib/xy/d.ts'),
    ];
    expect(pastDoors(graph, table)).toEqual([
      'cli/b.ts:1 imports lib/x/deep.ts (static): import lib/x/index.ts instead',
      'lib/y/a.ts:1 imports lib/x/deep.ts (dynamic): import lib/x/index.ts instead',
    ]);
  });

  it('finds printing and exit codes, comments aside', () => {
    const files = new Map([
      ['lib/a.ts', "// console.log('no')\nconsole.error('yes');\n"],
      ['lib/b.ts', "const a = 1;\nprocess.stderr.write('yes');\nif (process.exitCode === 2) process.exitCode = 3;\n"],
      ['lib/c.ts', 'process.stdout;\nprocess.exit(1);\n'],
    ]);
    expect(occurrences(files, printing)).toEqual(['lib/a.ts:2', 'lib/b.ts:2']);
    expect(occurrences(files, settingExitCode)).toEqual(['lib/b.ts:3']);
    expect(occurrences(files, exiting)).toEqual(['lib/c.ts:2']);
  });

  it('finds a file or a function over the limit, and a listed one no longer over it', () => {
    const body = (n: number) => Array.from({length: n}, (_, k) => `  const v${k} = ${k};`).join('\n');
    const files = new Map([
      ['lib/long.ts', `${'// line\n'.repeat(maxFileLines)}export const x = 1;\n`],
      [
        'lib/f.ts',
        `/** Doc. */\nexport function big(): void {\n${body(maxFunctionLines - 2)}\n}\nconst arrow = () => {\n${body(maxFunctionLines - 1)}\n};\nexport function small(): void {\n${body(maxFunctionLines - 3)}\n}\n`,
      ],
    ]);
    expect([...oversize(files)]).toEqual([
      ['lib/long.ts', maxFileLines + 1],
      ['lib/f.ts arrow', maxFunctionLines + 1],
    ]);
    expect(sizeViolations(oversize(files), ['lib/long.ts', 'lib/f.ts small'])).toEqual([
      `lib/f.ts arrow: ${maxFunctionLines + 1} lines, over ${maxFunctionLines} (function): split it by concern`,
      `lib/f.ts small: listed in oversizeInProgress but no longer over ${maxFunctionLines} (function): remove it from the list`,
    ]);
  });
});
