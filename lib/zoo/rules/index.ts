/** The rule registry, in report order. `--list-rules` and the README table come from here. */
import type {Rule} from '../rule.js';
import {readmePresent} from './readme-present.js';
import {readmeContent} from './readme-content.js';
import {provenancePresent} from './provenance-present.js';
import {provenanceSections} from './provenance-sections.js';
import {provenanceSectionEmpty} from './provenance-section-empty.js';
import {evalEntrypoint} from './eval-entrypoint.js';
import {fileReadable} from './file-readable.js';
import {placeholder} from './placeholder.js';
import {readmeMetricDirection} from './readme-metric-direction.js';
import {readmeSplit} from './readme-split.js';
import {readmeEditable, readmeTask} from './readme-topics.js';
import {planToml} from './plan-toml.js';
import {planValid} from './plan-valid.js';
import {planSeeds} from './plan-seeds.js';
import {planPoints} from './plan-points.js';
import {bundleMarker} from './bundle-marker.js';
import {bundleFingerprint} from './bundle-fingerprint.js';
import {bundleDeterministic} from './bundle-deterministic.js';
import {referenceDeterministic} from './reference-deterministic.js';
import {entryPoints} from './entry-points.js';
import {lockCurrent} from './lock-current.js';
import {lockPresent} from './lock-present.js';
import {weakValidator} from './weak-validator.js';

/** Every rule verify runs. */
export const rules: readonly Rule[] = [
  readmePresent,
  readmeContent,
  provenancePresent,
  provenanceSections,
  provenanceSectionEmpty,
  evalEntrypoint,
  fileReadable,
  placeholder,
  readmeTask,
  readmeMetricDirection,
  readmeEditable,
  readmeSplit,
  planToml,
  planValid,
  planSeeds,
  planPoints,
  bundleMarker,
  bundleFingerprint,
  bundleDeterministic,
  referenceDeterministic,
  entryPoints,
  lockCurrent,
  lockPresent,
  weakValidator,
];

/** The rules that say whether the benchmark can run (plan, bundle, points, seeds, a deterministic bundle, entry points): what `lock` refuses on. */
export const runnableRuleIds: ReadonlySet<string> = new Set(
  [planToml, planValid, planSeeds, planPoints, bundleMarker, bundleFingerprint, bundleDeterministic, referenceDeterministic, entryPoints].map(
    (rule) => rule.id,
  ),
);
