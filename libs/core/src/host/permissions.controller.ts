import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SignedIn } from '../access/permissions';
import { PermissionCatalog } from '../extensions/permission-catalog';

const ENTRY = {
  type: 'object',
  properties: {
    name: { type: 'string', example: 'inventory.warehouses:write' },
    description: { type: 'string', example: 'Create, change and delete warehouses' },
    extension: { type: 'string', example: 'inventory' },
  },
  required: ['name', 'description', 'extension'],
};

/** `GET /int/v1/permissions`: every permission a key or portal session may hold, with what it allows. */
@ApiTags('permissions')
@Controller('permissions')
export class PermissionsController {
  constructor(private readonly catalog: PermissionCatalog) {}

  @Get()
  @SignedIn()
  @ApiOperation({
    operationId: 'listPermissions',
    summary: 'The permission catalog',
    description:
      'Each resource of every loaded extension has `<extension>.<resources>:read` and, when it can be written, ' +
      '`:write`; extensions declare more for their own actions. A key or portal session holds names or ' +
      'wildcards (`inventory.*`, `*:read`, `*`).',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: { permissions: { type: 'array', items: ENTRY } },
      required: ['permissions'],
    },
  })
  list() {
    return { permissions: this.catalog.entries };
  }
}
