/**
 * Versioned tools: several registrations of one public tool name, told apart by their registry
 * key `<public name><separator><version>` (for example `search__2.0.0`) whose suffix equals the
 * annotation's `version`. Requiring both keeps an ordinary name that merely contains the
 * separator from being rewritten.
 */

/** `__` is inside the SEP-986 tool-name alphabet, so the SDK does not warn about the key. */
export const defaultVersionSeparator = '__';

/** The public name of a registry key, or undefined when the key is not a versioned registration. */
export function publicToolName(key: string, version: string | undefined, separator: string): string | undefined {
  if (version === undefined || separator === '') return undefined;
  const suffix = `${separator}${version}`;
  if (!key.endsWith(suffix) || key.length === suffix.length) return undefined;
  return key.slice(0, -suffix.length);
}

/**
 * Orders versions highest first: dotted numeric parts compare as numbers, a release ranks above
 * its pre-releases, and anything else falls back to string order so the choice is still total.
 */
export function compareVersionsDescending(left: string | undefined, right: string | undefined): number {
  if (left === right) return 0;
  if (left === undefined) return 1;
  if (right === undefined) return -1;
  const [leftCore = '', leftPre] = splitPrerelease(left);
  const [rightCore = '', rightPre] = splitPrerelease(right);
  const byCore = compareDotted(leftCore, rightCore);
  if (byCore !== 0) return -byCore;
  if (leftPre === undefined) return rightPre === undefined ? 0 : -1;
  if (rightPre === undefined) return 1;
  return -compareDotted(leftPre, rightPre);
}

function splitPrerelease(version: string): [string, string | undefined] {
  const withoutBuild = version.replace(/^v/, '').split('+', 1)[0] ?? '';
  const dash = withoutBuild.indexOf('-');
  return dash < 0 ? [withoutBuild, undefined] : [withoutBuild.slice(0, dash), withoutBuild.slice(dash + 1)];
}

function compareDotted(left: string, right: string): number {
  const leftParts = left.split('.');
  const rightParts = right.split('.');
  for (let index = 0; index < Math.max(leftParts.length, rightParts.length); index++) {
    const leftPart = leftParts[index];
    const rightPart = rightParts[index];
    if (leftPart === undefined) return -1;
    if (rightPart === undefined) return 1;
    const leftNumber = /^\d+$/.test(leftPart) ? Number(leftPart) : undefined;
    const rightNumber = /^\d+$/.test(rightPart) ? Number(rightPart) : undefined;
    if (leftNumber !== undefined && rightNumber !== undefined) {
      if (leftNumber !== rightNumber) return leftNumber < rightNumber ? -1 : 1;
    } else if (leftPart !== rightPart) {
      if (leftNumber !== undefined) return -1;
      if (rightNumber !== undefined) return 1;
      return leftPart < rightPart ? -1 : 1;
    }
  }
  return 0;
}
