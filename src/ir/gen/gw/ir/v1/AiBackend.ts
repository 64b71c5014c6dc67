// Original file: proto/gw/ir/v1/ir.proto


/**
 * Placeholders: the runtime rejects them until their issues define the fields.
 */
export interface AiBackend {
}

/**
 * Placeholders: the runtime rejects them until their issues define the fields.
 */
export interface AiBackend__Output {
}
