/** The name this process reports as its node (the envelope's `node`, notifications' `node`, `about`). */
export const NODE_NAME = `tel@${process.env.HOSTNAME ?? 'localhost'}`;
