/** The command registry, in help order. */
import type {CommandModule} from 'yargs';
import {benchmarkCommand} from './benchmark.js';
import {bundleCommand} from './bundle.js';
import {doctorCommand} from './doctor.js';
import {mcpCommand} from './mcp.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const commands: CommandModule<any, any>[] = [benchmarkCommand, bundleCommand, mcpCommand, doctorCommand];
