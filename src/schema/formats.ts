/**
 * The format of names and labels (`{type: 'string', format: 'printable'}`): text without C0 or C1
 * control characters, nor DEL, which a terminal would run as commands.
 */
export const PRINTABLE = 'printable';
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether `s` is printable (see PRINTABLE). */
export const isPrintable = (s: string): boolean => !CONTROL_CHARACTERS.test(s);
