/** The report's typed error: the CLI turns it into one line and exit 1. */
import {ArborError, ExitCode} from '../errors.js';

/**
 * The report could not be made or written (exit 1). Stable codes:
 * `report-assets` (the chart library is missing from this install),
 * `report-write` (the file could not be written).
 */
export class ReportError extends ArborError {
  constructor(message: string, code: 'report-assets' | 'report-write', options?: {cause?: unknown}) {
    super(message, code, ExitCode.findings, options);
  }
}
