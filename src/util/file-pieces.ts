/**
 * A file of known length written piece by piece as the client takes them (backpressure), so that a
 * large file made on the fly (a recording's sound) is never held whole.
 */
export interface FilePieces {
  length: number;
  pieces: Iterable<Buffer>;
}
