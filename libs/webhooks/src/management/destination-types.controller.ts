import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SignedIn } from '@wharf/core';
import { DESTINATION_TYPES } from '../destinations/destination-types';

/** Each type as served: its config's JSON Schema, credentials included (the secret ones writeOnly). */
export const DESTINATION_TYPES_SCHEMA = {
  type: 'object',
  properties: {
    destination_types: {
      type: 'array',
      items: {
        oneOf: DESTINATION_TYPES.map((type) => ({
          type: 'object',
          description: type.description,
          properties: {
            name: { type: 'string', const: type.name },
            description: { type: 'string' },
            config_schema: {
              type: 'object',
              description: `The JSON Schema of a ${type.name} endpoint's config.`,
              example: type.configSchema,
            },
          },
          required: ['name', 'description', 'config_schema'],
        })),
      },
    },
  },
  required: ['destination_types'],
};

/**
 * `GET /int/v1/destination-types`: where an endpoint's deliveries can go (http, the default, and each
 * broker), with the JSON Schema of the config of each; the console builds its endpoint form from it.
 */
@ApiTags('destination-types')
@Controller('destination-types')
export class DestinationTypesController {
  @Get()
  // A catalog of what the api offers, like GET /int/v1/permissions: open to any signed-in caller.
  @SignedIn()
  @ApiOperation({
    operationId: 'listDestinationTypes',
    summary: 'Destination types and their config',
    description:
      'An endpoint has a type (http unless set) and a config of that type. Each config_schema is a JSON ' +
      'Schema; the fields marked writeOnly are credentials: stored encrypted, and "[redacted]" in every ' +
      'read after they are written.',
  })
  @ApiOkResponse({ schema: DESTINATION_TYPES_SCHEMA })
  list() {
    return {
      destination_types: DESTINATION_TYPES.map((type) => ({
        name: type.name,
        description: type.description,
        config_schema: type.configSchema,
      })),
    };
  }
}
