<?php

declare(strict_types=1);

namespace App;

final class Calc
{
    public function add(int $a, int $b): int
    {
        return $a - $b;
    }
}
