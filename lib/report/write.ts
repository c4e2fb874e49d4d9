/** Write the report file whole or not at all. */
import {statSync} from 'node:fs';
import path from 'node:path';
import {writeFileAtomic} from '../files.js';
import {UsageError} from '../errors.js';
import {describeFsError} from '../zoo/text.js';
import {ReportError} from './errors.js';

/**
 * Why `file` cannot be the report's destination (its folder is missing or not
 * a folder, or it is a folder itself), or undefined when it can.
 */
function outputProblem(file: string): string | undefined {
  const folder = path.dirname(file);
  try {
    const folderStats = statSync(folder, {throwIfNoEntry: false});
    if (!folderStats) return `its folder \`${folder}\` does not exist`;
    if (!folderStats.isDirectory()) return `\`${folder}\` is not a folder`;
    if (statSync(file, {throwIfNoEntry: false})?.isDirectory()) return 'it is a folder';
    return undefined;
  } catch (error) {
    return `its folder \`${folder}\` cannot be used (${describeFsError(error)})`;
  }
}

/** The absolute destination for `--out` (relative to `cwd`); a UsageError when the report cannot go there. */
export function checkOutput(file: string, cwd = process.cwd()): string {
  if (file.trim() === '') throw new UsageError('The --out path is empty, expected an HTML file to write, e.g. `--out report.html`');
  const target = path.resolve(cwd, file);
  const problem = outputProblem(target);
  if (problem) throw new UsageError(`Cannot write the report to \`${file}\`: ${problem}; pass --out a file in an existing folder`, 'bad-output');
  return target;
}

/**
 * Write `html` to `file` (relative to `cwd`) through a temp file and a rename,
 * so the file is the old one or the whole new one. A bad destination is a
 * UsageError; a failed write a ReportError. Returns the absolute path.
 */
export function writeReport(file: string, html: string, cwd = process.cwd()): string {
  const target = checkOutput(file, cwd);
  try {
    writeFileAtomic(target, html);
  } catch (error) {
    throw new ReportError(`cannot write the report to \`${file}\` (${describeFsError(error)}); nothing was written`, 'report-write', {cause: error});
  }
  return target;
}
