public function bye(): string
{
    return 'bye';
}
