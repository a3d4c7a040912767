/** JSON-Logic truthiness: JavaScript's, except that an empty array is false (jsonlogic.com/truthy). */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return !!value;
}
