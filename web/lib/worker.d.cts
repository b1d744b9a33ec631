// Types of 'attention-step-by-step/worker' for CommonJS TypeScript (worker.cjs): a script that exports nothing.
export {};
