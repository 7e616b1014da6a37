// Types of the generated validators (see src/policy/generate.ts).
type Validator = ((data: unknown) => boolean) & { errors?: unknown[] | null };
export declare const validateLayer: Validator;
export declare const validatePolicy: Validator;
