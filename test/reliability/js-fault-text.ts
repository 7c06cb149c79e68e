/**
 * Texts of JavaScript's own exceptions. An error message that contains one is a fault that leaked to the client
 * (a TypeError or RangeError wrapped as if it were an answer), not a message that names the client's mistake.
 */
export const JS_FAULT_TEXT =
  /Cannot read propert|Cannot set propert|is not a function|is not iterable|is not a constructor|Cannot convert|Invalid DataView|Maximum call stack|Invalid array length|Invalid typed array length|Offset is outside the bounds|undefined \(reading/;

/** The message, if it shows a leaked JavaScript fault; else undefined. */
export function jsFault(message: string | undefined): string | undefined {
  return message && JS_FAULT_TEXT.test(message) ? message : undefined;
}
