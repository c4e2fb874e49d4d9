/**
 * zod for the plan's schema (lib/benchmark/plan-schema.ts), which every eval,
 * verify and list loads. The build bundles this file with esbuild into one
 * dist/lib/zod.js (`build:zod`), which loads in about half the time of zod's
 * own module tree. The MCP server keeps importing `zod` itself: its schemas
 * go to the SDK, which must see zod's own classes.
 */
export {z} from 'zod';
