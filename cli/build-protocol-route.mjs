#!/usr/bin/env node
// Build dist/lib/bundle/protocol-route.cjs: cli/bundle-protocol.ts and everything it imports, as one
// CommonJS file (why: see cli/bundle-protocol.ts). Run by `npm run build` after tsc.
//
// Three choices keep the bundled code behaving as the separate modules do:
// - CommonJS, so that a module reached only through `import()` (the Python host, with
//   child_process) is evaluated, and its Node built-ins required, only when called; an ES module
//   bundle would load every built-in up front. One copy of each module, so `instanceof` on
//   arbor's error classes holds throughout.
// - The random stream (lib/bundle/stream.ts, make only) is left out: workdir.ts imports the
//   compiled dist/lib/bundle/stream.js when make runs. Its generated SHA-256 rounds made the
//   file five times slower to compile for every verify and info. The stream shares no module
//   with the route but the table of array classes; the build refuses any other shared module.
// - The file lives in dist/lib/bundle/, next to the compiled modules whose `import.meta.url` it
//   stands in for (python.ts finds host.py relative to it), and where `./stream.js` resolves.
//   The build refuses a module from elsewhere that reads `import.meta` (lib/invocation.ts, which
//   does, is left out and imported compiled).
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {build} from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist/lib/bundle/protocol-route.cjs');
/**
 * Modules the route and the separately loaded stream may both load, each a copy of its own:
 * stateless ones (a table of global constructors; the WebAssembly encoding helpers).
 */
const SHARED_WITH_STREAM = new Set(['lib/bundle/tensor-arrays.ts', 'lib/wasm.ts']);

const options = {bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', metafile: true};
const route = await build({
  ...options,
  entryPoints: [path.join(root, 'cli/bundle-protocol.ts')],
  outfile,
  format: 'cjs',
  define: {'import.meta.url': '__protocol_route_url'},
  // "use strict" first: the modules are ES modules, strict throughout (esbuild's own directive follows the banner).
  banner: {js: `"use strict";\nvar __protocol_route_url = require('node:url').pathToFileURL(__filename).href;`},
  plugins: [
    {
      name: 'stream-apart',
      setup(b) {
        b.onResolve({filter: /^\.\/stream\.js$/}, (args) =>
          path.relative(root, args.importer) === path.join('lib/bundle/workdir.ts') ? {path: './stream.js', external: true} : undefined,
        );
        // How arbor names itself in a next step (`fingerprint --write`) finds its checkout from import.meta: the
        // compiled module is imported where it lies, dist/lib/invocation.js, one folder up from the route.
        b.onResolve({filter: /\/lib\/invocation\.js$/}, () => ({path: '../invocation.js', external: true}));
        // The sandbox a Python bundle's host starts in (python.ts, only when one starts): compiled, beside the route.
        b.onResolve({filter: /\/sandbox\/index\.js$/}, () => ({path: '../sandbox/index.js', external: true}));
      },
    },
  ],
});
const stream = await build({...options, entryPoints: [path.join(root, 'lib/bundle/stream.ts')], format: 'esm', write: false, outdir: 'unused'});

const problems = [];
const routeInputs = Object.keys(route.metafile.inputs);
for (const input of routeInputs) {
  if (!input.startsWith('lib/bundle/') && /\bimport\.meta\b/.test(readFileSync(path.join(root, input), 'utf8'))) {
    problems.push(`${input} reads import.meta, which would point at dist/lib/bundle/`);
  }
}
for (const input of Object.keys(stream.metafile.inputs)) {
  if (routeInputs.includes(input) && !SHARED_WITH_STREAM.has(input)) problems.push(`${input} would be loaded twice (in the route and with the stream)`);
}
if (problems.length > 0) {
  console.error(`build-protocol-route: ${problems.join('; ')}`);
  process.exit(1);
}
