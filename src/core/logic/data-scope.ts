import { compilePathReader, isWholeDataPath, readPath, splitPath } from './path.js';
import type { DataScope } from '../internal-types.js';

/**
 * Plain JSON-Logic data: `var` paths start at the data itself. Also the scope of array-operator
 * bodies, whose data is the current item.
 */
export const dataScope: DataScope = {
  resolveStatic(segments) {
    const read = compilePathReader(segments);
    return function readData(data) {
      return read(data);
    };
  },
  declareDynamicAccess() {},
  resolveDynamic(data, _primitive, path) {
    return isWholeDataPath(path) ? data : readPath(data, splitPath(path));
  },
  capabilities(data) {
    return data;
  },
  // flagd's default bucketing key: the flag key followed by the targeting key.
  defaultBucketKey(data) {
    const targetingKey = readPath(data, ['targetingKey']);
    if (typeof targetingKey !== 'string') return null;
    const flagKey = readPath(data, ['$flagd', 'flagKey']);
    return `${typeof flagKey === 'string' ? flagKey : ''}${targetingKey}`;
  },
};
