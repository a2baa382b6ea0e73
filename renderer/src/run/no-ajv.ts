/**
 * Stand-in for @rjsf/validator-ajv8, which @rjsf/core 6 imports only from its test helper
 * (getTestRegistry) without declaring it as a dependency. The renderer never calls that helper
 * and uses the CSP-safe validator in validator.ts instead; Ajv would need 'unsafe-eval'.
 */
const unavailable = (): never => {
  throw new Error('@rjsf/validator-ajv8 is not part of the Arcotheon renderer; use cfworkerValidator.');
};
export default unavailable;
export const customizeValidator = unavailable;
