// The arbitraries moved to mcp-gate/testing (src/testing), where users get them too; these names stay for the property tests.
import { policyDocuments, primitiveMetadata as primitiveMetadataArbitrary, requestContexts } from '../../src/testing/index.js';

export const requestContext = requestContexts();
export const primitiveMetadata = primitiveMetadataArbitrary();
export const policyDocument = policyDocuments();
