// The single-thread entry's types for CommonJS TypeScript (`module: node16` in a CommonJS project), as index.d.cts
// is the main entry's: the declarations are single-thread.d.ts's, reached by type-only imports; the values restated.
import type * as api from './single-thread.js' with { 'resolution-mode': 'import' };

export type * from './single-thread.js' with { 'resolution-mode': 'import' };
export declare const createAttention: typeof api.createAttention;
export declare const tensor: typeof api.tensor;
export declare const toArray: typeof api.toArray;
export declare const format: typeof api.format;
