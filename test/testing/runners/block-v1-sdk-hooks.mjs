export async function resolve(specifier, context, nextResolve) {
  if (specifier === '@modelcontextprotocol/sdk' || specifier.startsWith('@modelcontextprotocol/sdk/')) {
    const error = new Error(`Cannot find package '${specifier}' (hidden by block-v1-sdk.mjs)`);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return nextResolve(specifier, context);
}
