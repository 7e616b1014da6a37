// Types of the generated validator (see src/policy/generate.ts).
type Validator = ((data: unknown) => boolean) & { errors?: unknown[] | null };
export declare const validateLayer: Validator;
