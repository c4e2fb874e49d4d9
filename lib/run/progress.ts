/**
 * The live display of a zoo-wide run on stderr: how many evals are done of
 * how many, what runs now (entry and the eval's current step), the time so far
 * and an estimate of what is left. On a terminal one status line is redrawn
 * and finished steps scroll above it; elsewhere every step is a plain line.
 */
import {performance} from 'node:perf_hooks';
import type {RunEvent} from './events.js';
import {formatScoreCell} from './summary.js';
import {itemLabel} from './targets.js';

/** The stream the display writes to (process.stderr, or a test's stand-in). */
export interface DisplayStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Options of runDisplay. */
export interface DisplayOptions {
  /** How many evals the run has. */
  total: number;
  /** Show nothing (errors still reach stderr through the command). */
  quiet?: boolean;
  /** Milliseconds since some origin (tests pass their own clock). */
  now?: () => number;
  /** Redraw one status line (default: when the stream is a terminal and CI is unset). */
  tty?: boolean;
}

/** A running display: feed it the run's events; `done` clears the status line and stops the clock. */
export interface RunDisplay {
  onEvent(event: RunEvent): void;
  done(): void;
}

/** `m:ss`, or `h:mm:ss` past an hour. */
function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** What is left, from the pace so far: elapsed x remaining / done (null before the first eval is done). */
function estimateLeft(elapsed: number, done: number, total: number): number | null {
  return done === 0 ? null : (elapsed * (total - done)) / done;
}

/** Start a display of a run of `total` evals. */
export function runDisplay(stream: DisplayStream, options: DisplayOptions): RunDisplay {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const tty = options.tty ?? (Boolean(stream.isTTY) && !process.env.CI);
  const quiet = options.quiet ?? false;
  const total = options.total;
  let done = 0;
  /** Running evals, by label: their latest status text. */
  const running = new Map<string, string>();
  let statusShown = false;

  const elapsed = () => (now() - started) / 1000;
  const clock = () => {
    const seconds = elapsed();
    const left = estimateLeft(seconds, done, total);
    return `${formatDuration(seconds)} elapsed, ${left === null ? 'estimating what is left' : `~${formatDuration(left)} left`}`;
  };
  const clear = () => {
    if (statusShown) stream.write('\r\x1b[K');
    statusShown = false;
  };
  const drawStatus = () => {
    if (!tty || quiet) return;
    clear();
    const [first] = running;
    const current = first ? ` ${first[0]}${first[1] ? `: ${first[1]}` : ''}${running.size > 1 ? ` (+${running.size - 1} more running)` : ''}` : '';
    // Compact, so the entry and its step fit a terminal line: [done/total · elapsed · ~left].
    const seconds = elapsed();
    const left = estimateLeft(seconds, done, total);
    const text = `[${done}/${total} · ${formatDuration(seconds)}${left === null ? '' : ` · ~${formatDuration(left)} left`}]${current}`;
    const width = Math.max(20, (stream.columns || 80) - 1);
    stream.write(text.length > width ? `${text.slice(0, width - 1)}…` : text);
    statusShown = true;
  };
  const line = (text: string) => {
    if (quiet) return;
    clear();
    stream.write(`${text}\n`);
    drawStatus();
  };
  // On a terminal the clock moves even while an eval is quiet.
  const timer = tty && !quiet ? setInterval(drawStatus, 1000) : undefined;
  timer?.unref();

  return {
    onEvent(event) {
      const label = itemLabel(event.item);
      switch (event.type) {
        case 'start':
          running.set(label, '');
          if (tty) drawStatus();
          else line(`${label}: started${event.worker ? ` on ${event.worker}` : ''}`);
          break;
        case 'progress':
          if (event.kind === 'line') line(`${label}: ${event.text}`);
          else {
            running.set(label, event.text);
            drawStatus();
          }
          break;
        case 'finish': {
          running.delete(label);
          done++;
          for (const warning of event.warnings) line(`${label}: ${warning}`);
          const {result} = event;
          const outcome =
            result.status === 'error'
              ? `error: ${result.failure}`
              : `${formatScoreCell(result)} ${result.status}${result.failure ? `: ${result.failure}` : ''}`;
          line(`[${done}/${total}] ${label}: ${outcome} · ${clock()}`);
          break;
        }
      }
    },
    done() {
      if (timer) clearInterval(timer);
      clear();
    },
  };
}
