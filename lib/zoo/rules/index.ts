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
  readmeMetricDirection,
  readmeSplit,
];
