/** Placeholder. */
export const placeholder = 1;
