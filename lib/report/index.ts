/** The HTML report of a zoo: its health, scores, score history and test exposure. See docs/commands.md, "arbor benchmark report". */
export * from './errors.js';
export * from './model.js';
export * from './chart.js';
export * from './assets.js';
export * from './html.js';
export * from './collect.js';
export * from './write.js';
