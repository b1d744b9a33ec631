// The package's types for CommonJS TypeScript (`module: node16` in a CommonJS project): Node ≥ 20.19 loads the
// ES module through `require` (index.cjs). The declarations are index.d.ts's, reached by type-only imports,
// which a CommonJS file may make; only the four functions are restated as values.
import type * as api from './index.js' with { 'resolution-mode': 'import' };

export type * from './index.js' with { 'resolution-mode': 'import' };
export declare const createAttention: typeof api.createAttention;
export declare const tensor: typeof api.tensor;
export declare const toArray: typeof api.toArray;
export declare const format: typeof api.format;
