/** tel's version, reported in every envelope and by `tel --version`. */
export const VERSION = '0.1.0';
