/**
 * The command tree, read from the registry without running anything: each
 * module's builder is called on a recorder that notes its `.command()` calls.
 * Used to name unknown commands, suggest the nearest one, and word argument
 * errors as one line naming the command and its usage.
 */
import type {CommandModule} from 'yargs';
import {UsageError} from '../lib/errors.js';
import {distance} from '../lib/nearest.js';

/** One node: its name, its positional words (`<a>`, `[b..]`) and its subcommands. */
export interface CommandNode {
  name: string;
  positionals: string[];
  children: CommandNode[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyModule = CommandModule<any, any> | string;

/** Build the tree below the root from the registry's modules. */
export function commandTree(modules: readonly AnyModule[]): CommandNode {
  return {name: '', positionals: [], children: modules.map(nodeOf).filter((n): n is CommandNode => n !== undefined)};
}

function nodeOf(module: AnyModule): CommandNode | undefined {
  const spec = typeof module === 'string' ? module : Array.isArray(module.command) ? module.command[0] : module.command;
  if (typeof spec !== 'string') return undefined;
  const [name = '', ...positionals] = spec.trim().split(/\s+/);
  const children: CommandNode[] = [];
  if (typeof module === 'object' && typeof module.builder === 'function') {
    const found: AnyModule[] = [];
    const recorder: unknown = new Proxy(function () {}, {
      get(_target, prop) {
        if (prop === 'then') return undefined;
        if (prop === 'command')
          return (m: AnyModule) => {
            if (typeof m === 'string' || (m && typeof m === 'object')) found.push(m);
            return recorder;
          };
        return () => recorder;
      },
      apply: () => recorder,
    });
    try {
      (module.builder as (y: unknown) => unknown)(recorder);
    } catch {
      // a builder that needs a real yargs instance: treat the command as a leaf
    }
    for (const child of found) {
      const node = nodeOf(child);
      if (node) children.push(node);
    }
  }
  return {name, positionals, children};
}

/** The nearest name to `word` among the node's children (and grandchildren), if close enough. */
function suggest(node: CommandNode, word: string): string | undefined {
  const candidates: {name: string; score: number}[] = [];
  for (const child of node.children) {
    candidates.push({name: child.name, score: score(word, child.name)});
    for (const grandchild of child.children) candidates.push({name: `${child.name} ${grandchild.name}`, score: score(word, grandchild.name) + 0.5});
  }
  candidates.sort((a, b) => a.score - b.score);
  const best = candidates[0];
  return best && best.score <= Math.max(2, Math.floor(word.length / 3)) ? best.name : undefined;
}

function score(word: string, name: string): number {
  if (name.startsWith(word) && word.length >= 2) return 0.25;
  return distance(word.toLowerCase(), name);
}

const helpFlags = new Set(['--help', '-h', '--version']);

/** Positional words of argv up to `--`, skipping options (and the value of `--opt value` when known). */
function words(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (const arg of argv) {
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') out.push(arg);
  }
  return out;
}

/** Walk argv down the tree; throws a UsageError for an unknown or missing command. Returns the command path. */
export function checkCommandPath(root: CommandNode, argv: readonly string[]): {path: CommandNode[]; rest: string[]} {
  const path: CommandNode[] = [];
  let node = root;
  const list = words(argv);
  const askedForHelp = argv.some((a) => helpFlags.has(a));
  let i = 0;
  while (node.children.length > 0) {
    // A command with its own positionals before its subcommands (e.g. `bundle <bundle-dir> make`).
    const leading = node.positionals.filter((p) => p.startsWith('<') && !p.includes('..') && p !== '<command>').length;
    i += leading;
    const word = list[i];
    const where = path.length ? `\`arbor ${path.map((n) => n.name).join(' ')}\`` : 'arbor';
    const names = node.children.map((c) => c.name);
    if (word === undefined) {
      if (askedForHelp) break;
      if (i > list.length) break; // missing leading positional: yargs words it below
      throw new UsageError(`Missing command${path.length ? ` for ${where}` : ''}: expected one of ${names.map((n) => `\`${n}\``).join(', ')}`);
    }
    const child = node.children.find((c) => c.name === word);
    if (!child) {
      if (askedForHelp && path.length === 0) break;
      const nearest = suggest(node, word);
      const hint = nearest ? `, did you mean \`${nearest}\`?` : `; expected one of ${names.map((n) => `\`${n}\``).join(', ')}`;
      throw new UsageError(`Unknown command \`${word}\`${path.length ? ` for ${where}` : ''}${hint}`);
    }
    path.push(child);
    node = child;
    i++;
  }
  return {path, rest: list.slice(i)};
}

/** Reword a yargs validation message as one line naming the command and its usage. */
export function rewordYargsMessage(message: string, root: CommandNode, argv: readonly string[]): string {
  let path: CommandNode[] = [];
  try {
    path = checkCommandPath(root, argv).path;
  } catch (error) {
    return (error as Error).message;
  }
  const leaf = path[path.length - 1];
  const name = `arbor ${path.map((n) => n.name).join(' ')}`.trim();
  const usage = leaf ? `\`${[name, ...leaf.positionals].join(' ')}\`` : '`arbor <command>`';
  const help = `run \`${name} --help\` for usage`;
  let match = /^Not enough non-option arguments: got (\d+), need at least (\d+)/.exec(message);
  if (match) {
    const missing = (leaf?.positionals ?? []).filter((p) => p.startsWith('<'))[Number(match[1])];
    return `Missing argument ${missing ?? ''} for \`${name}\`: usage ${usage}`.replace('  ', ' ');
  }
  match = /^Too many non-option arguments: got (\d+), maximum of (\d+)/.exec(message);
  if (match) {
    const extra = words(argv).slice(path.length + Number(match[2]));
    return `Unexpected extra argument \`${extra[0] ?? '?'}\` for \`${name}\`: usage ${usage}`;
  }
  match = /^Unknown arguments?: (.+)$/.exec(message);
  if (match) {
    const unknown = match[1]!.split(', ');
    const first = unknown[0]!;
    const asOption = argv.find((a) => a.replace(/^-+/, '').split('=')[0] === first && a.startsWith('-'));
    if (asOption) return `Unknown option \`${asOption.split('=')[0]}\` for \`${name}\`; ${help}`;
    return `Unexpected extra argument \`${first}\` for \`${name}\`: usage ${usage}`;
  }
  match = /^Missing required argument: (.+)$/.exec(message);
  if (match) return `Missing required argument \`${match[1]}\` for \`${name}\`: usage ${usage}`;
  match = /^Not enough arguments following: (.+)$/.exec(message);
  if (match) return `Option \`--${match[1]}\` of \`${name}\` needs a value; ${help}`;
  return `${message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ')} (${help})`;
}
