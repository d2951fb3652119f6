<?php

declare(strict_types=1);

namespace App;

use App\Service\Clock;
use Psr\Log\LoggerInterface;

final class Greeter
{
    private int $count = 0;

    public function __construct(private readonly LoggerInterface $logger)
    {
    }

    /**
     * Greets someone.
     */
    public function greet(string $name): string
    {
        return 'Hello ' . $name;
    }

    /**
     * Never called.
     */
    #[Deprecated]
    private function unused(): void
    {
    }

    public function count(): int
    {
        return $this->count;
    }
}
