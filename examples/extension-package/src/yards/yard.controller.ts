import { HttpCode, Param, Post } from '@nestjs/common';
import { Resource } from '@wharf/core';
import { YardService } from './yard.service';
import { Yard } from './yard.entity';

@Resource(Yard)
export class YardController {
  constructor(private readonly yards: YardService) {}

  @Post(':uuid/close')
  @HttpCode(200)
  close(@Param('uuid') uuid: string) {
    return this.yards.close(uuid);
  }
}
