"""Scenarios for agent_edits_adversarial.py: realistic files and edits as agents write them.

Every expectation is built by one explicit, unique substitution on the file (`sub`), never by
the code under test.
"""

MODELS = '''"""Models for the orders app."""
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone


class TimeStampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class Customer(TimeStampedModel):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    phone = models.CharField(max_length=32, blank=True)  
    vip = models.BooleanField(default=False)

    class Meta:
        ordering = ["user__last_name"]
        verbose_name = "customer"

    def __str__(self):
        return self.user.get_full_name()

    @property
    def display_name(self):
        name = self.user.get_full_name()
        if not name:
            return self.user.username
        return name


class Order(TimeStampedModel):
    STATUS_CHOICES = [
        ("new", "New"),
        ("paid", "Paid"),
        ("shipped", "Shipped"),
    ]

    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="orders")
    status = models.CharField(max_length=16, choices=STATUS_CHOICES, default="new")
    total = models.DecimalField(max_digits=10, decimal_places=2, default=Decimal("0.00"))

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "order"

    def __str__(self):
        return f"Order #{self.pk}"

    def mark_paid(self):
        self.status = "paid"
        self.paid_at = timezone.now()

        self.save(update_fields=["status", "paid_at"])

    def mark_shipped(self):
        self.status = "shipped"
        self.shipped_at = timezone.now()

        self.save(update_fields=["status", "shipped_at"])

    def recalculate(self):
        total = Decimal("0.00")
        for line in self.lines.all():
            total += line.price * line.quantity
        self.total = total
        self.save(update_fields=["total"])
        return total
'''

VIEWS = '''from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render

from .models import Order


@login_required
def order_list(request):
    orders = Order.objects.filter(customer__user=request.user)
    return render(request, "orders/list.html", {"orders": orders})


@login_required
def order_detail(request, pk):
    order = get_object_or_404(Order, pk=pk, customer__user=request.user)
    return render(request, "orders/detail.html", {"order": order})


@login_required
def order_pay(request, pk):
    order = get_object_or_404(Order, pk=pk, customer__user=request.user)
    if request.method != "POST":
        return JsonResponse({"error": "method not allowed"}, status=405)
    order.mark_paid()
    return JsonResponse({"status": order.status})


@login_required
def order_ship(request, pk):
    order = get_object_or_404(Order, pk=pk, customer__user=request.user)
    if request.method != "POST":
        return JsonResponse({"error": "method not allowed"}, status=405)
    order.mark_shipped()
    return JsonResponse({"status": order.status})'''  # no final newline

CONTROLLER = '''<?php

namespace App\\Controller;

use App\\Entity\\Product;
use App\\Repository\\ProductRepository;
use Doctrine\\ORM\\EntityManagerInterface;
use Symfony\\Bundle\\FrameworkBundle\\Controller\\AbstractController;
use Symfony\\Component\\HttpFoundation\\JsonResponse;
use Symfony\\Component\\HttpFoundation\\Request;
use Symfony\\Component\\Routing\\Attribute\\Route;

#[Route('/api/products')]
class ProductController extends AbstractController
{
    public function __construct(
        private readonly ProductRepository $products,
        private readonly EntityManagerInterface $em,
    ) {
    }

    /**
     * Lists every product.
     */
    #[Route('', methods: ['GET'])]
    public function index(): JsonResponse
    {
        $items = $this->products->findAll();

        return $this->json($items);
    }

    /**
     * Shows one product.
     */
    #[Route('/{id}', methods: ['GET'])]
    public function show(int $id): JsonResponse
    {
        $product = $this->products->find($id);
        if (null === $product) {
            return $this->json(['error' => 'not found'], 404);
        }

        return $this->json($product);
    }

    /**
     * Deletes one product.
     */
    #[Route('/{id}', methods: ['DELETE'])]
    public function delete(int $id): JsonResponse
    {
        $product = $this->products->find($id);
        if (null === $product) {
            return $this->json(['error' => 'not found'], 404);
        }

        $this->em->remove($product);
        $this->em->flush();

        return $this->json(null, 204);
    }
}
'''

TABS = '''package server

import (
\t"net/http"
\t"time"
)

type Server struct {
\taddr    string
\ttimeout time.Duration
}

func (s *Server) Start() error {
\tsrv := &http.Server{
\t\tAddr:         s.addr,
\t\tReadTimeout:  s.timeout,
\t\tWriteTimeout: s.timeout,
\t}

\treturn srv.ListenAndServe()
}
'''

YAML = '''services:
  web:
    image: app:latest
    ports:
      - "8000:8000"
    environment:
      DEBUG: "0"
  worker:
    image: app:latest
    command: celery -A app worker
    environment:
      DEBUG: "0"
'''

JS = '''export function formatPrice(cents) {
  const euros = cents / 100;
  return euros.toFixed(2) + " EUR";
}

export function formatDate(d) {
  return d.toISOString().slice(0, 10);
}
'''


def sub(text, old, new, count=1):
    assert text.count(old) == count, (old, text.count(old))
    return text.replace(old, new)


def crlf(text):
    return text.replace("\n", "\r\n")


SCENARIOS = []


def sc(name, cls, dialect, files, edit, expect):
    SCENARIOS.append({"name": name, "cls": cls, "dialect": dialect, "files": files,
                      "edit": edit, "expect": expect})


def block(path, search, replace, fence="python", head=None):
    head = path if head is None else head
    return (f"{head}\n```{fence}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")


M = "app/models.py"
V = "app/views.py"
C = "src/Controller/ProductController.php"

# ---------------------------------------------------------------- blocks
MARK_PAID_NEW = MODELS.replace('''        self.paid_at = timezone.now()

        self.save(update_fields=["status", "paid_at"])''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)

        self.save(update_fields=["status", "paid_at"])''')

sc("blocks_clean_fenced", "clean", "blocks", {M: MODELS},
   "I'll log the payment.\n\n" + block(M, '''    def mark_paid(self):
        self.status = "paid"
        self.paid_at = timezone.now()
''', '''    def mark_paid(self):
        self.status = "paid"
        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
'''), {M: MARK_PAID_NEW})

sc("blocks_bold_filename", "clean", "blocks", {M: MODELS},
   block(M, '''        self.paid_at = timezone.now()
''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
''', head=f"**{M}**"), {M: MARK_PAID_NEW})

sc("blocks_backtick_filename", "clean", "blocks", {M: MODELS},
   block(M, '''        self.paid_at = timezone.now()
''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
''', head=f"`{M}`"), {M: MARK_PAID_NEW})

sc("blocks_dot_slash_path", "clean", "blocks", {M: MODELS},
   block(M, '''        self.paid_at = timezone.now()
''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
''', head=f"./{M}"), {M: MARK_PAID_NEW})

sc("blocks_trailing_ws_lost", "trailing_ws_lost", "blocks", {M: MODELS},
   block(M, '''    phone = models.CharField(max_length=32, blank=True)
    vip = models.BooleanField(default=False)
''', '''    phone = models.CharField(max_length=32, blank=True)
    vip = models.BooleanField(default=False)
    notes = models.TextField(blank=True)
'''), {M: sub(MODELS, "    vip = models.BooleanField(default=False)\n",
              "    vip = models.BooleanField(default=False)\n    notes = models.TextField(blank=True)\n")})

sc("blocks_changed_line_had_trailing_ws", "trailing_ws_lost", "blocks", {M: MODELS},
   block(M, '''    phone = models.CharField(max_length=32, blank=True)
''', '''    phone = models.CharField(max_length=64, blank=True)
'''), {M: sub(MODELS, "    phone = models.CharField(max_length=32, blank=True)  \n",
              "    phone = models.CharField(max_length=64, blank=True)\n")})

sc("blocks_indent_2_instead_of_4", "indent_shifted", "blocks", {M: MODELS},
   block(M, '''def recalculate(self):
    total = Decimal("0.00")
    for line in self.lines.all():
        total += line.price * line.quantity
''', '''def recalculate(self):
    total = Decimal("0.00")
    for line in self.lines.all():
        if line.cancelled:
            continue
        total += line.price * line.quantity
'''), {M: sub(MODELS, '''        for line in self.lines.all():
            total += line.price''', '''        for line in self.lines.all():
            if line.cancelled:
                continue
            total += line.price''')})

sc("blocks_intended_reindent", "indent_shifted", "blocks", {V: VIEWS},
   block(V, '''    orders = Order.objects.filter(customer__user=request.user)
    return render(request, "orders/list.html", {"orders": orders})
''', '''    if request.user.is_staff:
        orders = Order.objects.all()
    else:
        orders = Order.objects.filter(customer__user=request.user)
    return render(request, "orders/list.html", {"orders": orders})
'''), {V: sub(VIEWS, '''    orders = Order.objects.filter(customer__user=request.user)
''', '''    if request.user.is_staff:
        orders = Order.objects.all()
    else:
        orders = Order.objects.filter(customer__user=request.user)
''')})

sc("blocks_whitespace_only_change", "indent_shifted", "blocks", {TABS and "srv/bad.py": "def f(x):\n    if x:\n        return 1\n        return 2\n"},
   block("srv/bad.py", "    if x:\n        return 1\n        return 2\n", "    if x:\n        return 1\n    return 2\n"),
   {"srv/bad.py": "def f(x):\n    if x:\n        return 1\n    return 2\n"})

sc("blocks_tabs_file_spaces_edit", "tabs_vs_spaces", "blocks", {"server/server.go": TABS},
   block("server/server.go", '''    srv := &http.Server{
        Addr:         s.addr,
        ReadTimeout:  s.timeout,
''', '''    srv := &http.Server{
        Addr:         s.addr,
        IdleTimeout:  s.timeout,
        ReadTimeout:  s.timeout,
''', fence="go"), {"server/server.go": sub(TABS, "\t\tReadTimeout:", "\t\tIdleTimeout:  s.timeout,\n\t\tReadTimeout:")})

sc("blocks_crlf_php", "crlf_file_lf_edit", "blocks", {C: crlf(CONTROLLER)},
   block(C, '''        $this->em->remove($product);
        $this->em->flush();
''', '''        $this->em->remove($product);
        $this->em->flush();
        $this->logger->info('deleted', ['id' => $id]);
''', fence="php"), {C: crlf(sub(CONTROLLER, "        $this->em->flush();\n",
                                 "        $this->em->flush();\n        $this->logger->info('deleted', ['id' => $id]);\n"))})

sc("blocks_curly_quotes", "curly_punctuation", "blocks", {M: MODELS},
   block(M, '''        verbose_name = \u201ccustomer\u201d
''', '''        verbose_name = "customer"
        verbose_name_plural = "customers"
'''), {M: sub(MODELS, '        verbose_name = "customer"\n',
              '        verbose_name = "customer"\n        verbose_name_plural = "customers"\n')})

sc("blocks_leading_blank", "leading_blank_line", "blocks", {M: MODELS},
   block(M, '''
    def recalculate(self):
        total = Decimal("0.00")
''', '''
    def recalculate(self):
        """Sum the lines again."""
        total = Decimal("0.00")
'''), {M: sub(MODELS, '    def recalculate(self):\n', '    def recalculate(self):\n        """Sum the lines again."""\n')})

sc("blocks_elision_both_sides", "elision", "blocks", {C: CONTROLLER},
   block(C, '''    public function delete(int $id): JsonResponse
    {
...
        $this->em->flush();
''', '''    public function delete(int $id): JsonResponse
    {
...
        $this->em->flush();
        $this->addFlash('success', 'Deleted');
''', fence="php"), {C: sub(CONTROLLER, "        $this->em->flush();\n",
                            "        $this->em->flush();\n        $this->addFlash('success', 'Deleted');\n")})

sc("blocks_existing_code_comment", "elision", "blocks", {M: MODELS},
   block(M, '''class Customer(TimeStampedModel):
    # ... existing code ...
    def __str__(self):
        return self.user.get_full_name()
''', '''class Customer(TimeStampedModel):
    # ... existing code ...
    def __str__(self):
        return self.display_name
'''), {M: sub(MODELS, "        return self.user.get_full_name()\n\n    @property",
              "        return self.display_name\n\n    @property")})

sc("blocks_missing_middle_line", "stale_text", "blocks", {M: MODELS},
   block(M, '''    def mark_paid(self):
        self.status = "paid"
        self.save(update_fields=["status", "paid_at"])
''', '''    def mark_paid(self):
        self.status = "paid"
        self.save(update_fields=["status"])
'''), "refuse")

sc("blocks_wrong_twin", "wrong_twin", "blocks", {M: MODELS},
   block(M, '''    def mark_paid(self):
        self.status = "paid"
        self.shipped_at = timezone.now()
''', '''    def mark_paid(self):
        self.status = "paid"
        self.shipped_at = None
'''), "refuse")

sc("blocks_ambiguous_meta", "ambiguous", "blocks", {M: MODELS},
   block(M, '''    class Meta:
        ordering = ["-created_at"]
''', '''    class Meta:
        ordering = ["-created_at", "pk"]
'''), {M: sub(MODELS, 'ordering = ["-created_at"]', 'ordering = ["-created_at", "pk"]')})

sc("blocks_ambiguous_exact", "ambiguous", "blocks", {C: CONTROLLER},
   block(C, '''        if (null === $product) {
            return $this->json(['error' => 'not found'], 404);
        }
''', '''        if (null === $product) {
            throw $this->createNotFoundException();
        }
''', fence="php"), "refuse")

sc("blocks_loose_twice", "ambiguous", "blocks", {V: VIEWS},
   block(V, '''order = get_object_or_404(Order, pk=pk, customer__user=request.user)
if request.method != "POST":
''', '''order = get_object_or_404(Order, pk=pk, customer__user=request.user)
if request.method not in ("POST", "PUT"):
'''), "refuse")

sc("blocks_already_applied", "already_applied", "blocks", {M: MARK_PAID_NEW},
   block(M, '''        self.paid_at = timezone.now()
''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
'''), {})

sc("blocks_partially_applied", "already_applied", "blocks", {M: MARK_PAID_NEW},
   block(M, '''        self.paid_at = timezone.now()
''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
''') + "\n" + block(M, '''        self.shipped_at = timezone.now()
''', '''        self.shipped_at = timezone.now()
        logger.info("order %s shipped", self.pk)
'''), {M: sub(MARK_PAID_NEW, "        self.shipped_at = timezone.now()\n",
              "        self.shipped_at = timezone.now()\n        logger.info(\"order %s shipped\", self.pk)\n")})

sc("blocks_last_line_no_newline", "clean", "blocks", {V: VIEWS},
   block(V, '''    order.mark_shipped()
    return JsonResponse({"status": order.status})
''', '''    order.mark_shipped()
    return JsonResponse({"status": order.status, "id": order.pk})
'''), {V: VIEWS[: VIEWS.rindex("\n")] + '\n    return JsonResponse({"status": order.status, "id": order.pk})'})

sc("blocks_replace_shares_lines", "clean", "blocks", {V: VIEWS},
   block(V, '''@login_required
def order_detail(request, pk):
''', '''@login_required
@require_GET
def order_detail(request, pk):
'''), {V: sub(VIEWS, "@login_required\ndef order_detail", "@login_required\n@require_GET\ndef order_detail")})

sc("blocks_yaml_2space", "clean", "blocks", {"docker-compose.yml": YAML},
   block("docker-compose.yml", '''  worker:
    image: app:latest
    command: celery -A app worker
''', '''  worker:
    image: app:latest
    command: celery -A app worker -l info
''', fence="yaml"), {"docker-compose.yml": sub(YAML, "worker\n    environment", "worker -l info\n    environment")})

sc("blocks_yaml_indent_lost", "indent_shifted", "blocks", {"docker-compose.yml": YAML},
   block("docker-compose.yml", '''worker:
  image: app:latest
  command: celery -A app worker
''', '''worker:
  image: app:latest
  command: celery -A app worker -l info
''', fence="yaml"), {"docker-compose.yml": sub(YAML, "worker\n    environment", "worker -l info\n    environment")})

sc("blocks_js_4space_edit", "indent_shifted", "blocks", {"web/format.js": JS},
   block("web/format.js", '''export function formatDate(d) {
    return d.toISOString().slice(0, 10);
}
''', '''export function formatDate(d) {
    if (!d) {
        return "";
    }
    return d.toISOString().slice(0, 10);
}
''', fence="js"), {"web/format.js": sub(JS, "export function formatDate(d) {\n",
                                        'export function formatDate(d) {\n  if (!d) {\n    return "";\n  }\n')})

sc("blocks_stale_text", "stale_text", "blocks", {C: CONTROLLER},
   block(C, '''        $items = $this->products->findAllSorted();
''', '''        $items = $this->products->findBy([], ['name' => 'ASC']);
''', fence="php"), "refuse")

sc("blocks_new_file", "clean", "blocks", {M: MODELS},
   block("app/signals.py", "", "from django.dispatch import receiver\n"),
   {"app/signals.py": "from django.dispatch import receiver\n"})

sc("blocks_php_docblock_edit", "clean", "blocks", {C: CONTROLLER},
   block(C, '''    /**
     * Shows one product.
     */
''', '''    /**
     * Shows one product.
     *
     * @throws NotFoundHttpException
     */
''', fence="php"), {C: sub(CONTROLLER, "     * Shows one product.\n", "     * Shows one product.\n     *\n     * @throws NotFoundHttpException\n")})

# ---------------------------------------------------------------- unified diffs
SHIP_NEW = sub(MODELS, '''        self.shipped_at = timezone.now()
''', '''        self.shipped_at = timezone.now()
        notify_customer(self)
''')
SHIP_HUNK = '''         self.status = "shipped"
         self.shipped_at = timezone.now()
+        notify_customer(self)
 
         self.save(update_fields=["status", "shipped_at"])
'''
SHIP_LINE = MODELS[: MODELS.index('        self.status = "shipped"')].count("\n") + 1


def udiff(path, hunks, a="a/", b="b/", git=True):
    head = f"diff --git {a}{path} {b}{path}\n" if git else ""
    return head + f"--- {a}{path}\n+++ {b}{path}\n" + "".join(hunks)


sc("diff_clean", "clean", "diff", {M: MODELS},
   udiff(M, [f"@@ -{SHIP_LINE},4 +{SHIP_LINE},5 @@ class Order(TimeStampedModel):\n" + SHIP_HUNK]), {M: SHIP_NEW})

sc("diff_fenced_in_reply", "clean", "diff", {M: MODELS},
   "Here is the change:\n\n```diff\n" + udiff(M, [f"@@ -{SHIP_LINE},4 +{SHIP_LINE},5 @@\n" + SHIP_HUNK], git=False)
   + "```\n\nThis notifies the customer.\n", {M: SHIP_NEW})

sc("diff_no_ab_prefix", "clean", "diff", {M: MODELS},
   udiff(M, [f"@@ -{SHIP_LINE},4 +{SHIP_LINE},5 @@\n" + SHIP_HUNK], a="", b="", git=False), {M: SHIP_NEW})

sc("diff_blank_context_no_space", "clean", "diff", {M: MODELS},
   udiff(M, [f"@@ -{SHIP_LINE},4 +{SHIP_LINE},5 @@\n" + SHIP_HUNK.replace("\n \n", "\n\n")]), {M: SHIP_NEW})

sc("diff_wrong_line_numbers", "stale_line_numbers", "diff", {M: MODELS},
   udiff(M, [f"@@ -12,4 +12,5 @@\n" + SHIP_HUNK]), {M: SHIP_NEW})

sc("diff_wrong_counts", "stale_line_numbers", "diff", {M: MODELS},
   udiff(M, [f"@@ -{SHIP_LINE},3 +{SHIP_LINE},7 @@\n" + SHIP_HUNK]), {M: SHIP_NEW})

sc("diff_bare_at_at", "stale_line_numbers", "diff", {M: MODELS},
   udiff(M, ["@@ ... @@\n" + SHIP_HUNK], git=False), {M: SHIP_NEW})

sc("diff_bare_at_at_2", "stale_line_numbers", "diff", {M: MODELS},
   udiff(M, ["@@\n" + SHIP_HUNK], git=False), {M: SHIP_NEW})

sc("diff_trailing_ws_lost", "trailing_ws_lost", "diff", {M: MODELS},
   udiff(M, ['''@@ -19,3 +19,4 @@
     phone = models.CharField(max_length=32, blank=True)
     vip = models.BooleanField(default=False)
+    notes = models.TextField(blank=True)
 
''']), {M: sub(MODELS, "    vip = models.BooleanField(default=False)\n",
              "    vip = models.BooleanField(default=False)\n    notes = models.TextField(blank=True)\n")})

sc("diff_crlf_file", "crlf_file_lf_edit", "diff", {C: crlf(CONTROLLER)},
   udiff(C, ['''@@ -57,6 +57,7 @@
 
         $this->em->remove($product);
         $this->em->flush();
+        $this->logger->info('deleted', ['id' => $id]);
 
         return $this->json(null, 204);
     }
''']), {C: crlf(sub(CONTROLLER, "        $this->em->flush();\n",
                     "        $this->em->flush();\n        $this->logger->info('deleted', ['id' => $id]);\n"))})

sc("diff_last_line_no_newline_marker_missing", "clean", "diff", {V: VIEWS},
   udiff(V, ['''@@ -33,3 +33,3 @@
         return JsonResponse({"error": "method not allowed"}, status=405)
     order.mark_shipped()
-    return JsonResponse({"status": order.status})
+    return JsonResponse({"status": order.status, "id": order.pk})
''']), {V: VIEWS[: VIEWS.rindex("\n")] + '\n    return JsonResponse({"status": order.status, "id": order.pk})'})

sc("diff_already_applied", "already_applied", "diff", {M: SHIP_NEW},
   udiff(M, [f"@@ -{SHIP_LINE},4 +{SHIP_LINE},5 @@\n" + SHIP_HUNK]), {})

sc("diff_two_hunks_second_stale_numbers", "stale_line_numbers", "diff", {M: MODELS},
   udiff(M, ['''@@ -1,4 +1,5 @@
 """Models for the orders app."""
+import logging
 from decimal import Decimal
 
 from django.conf import settings
''', '''@@ -40,4 +41,5 @@
         self.status = "shipped"
         self.shipped_at = timezone.now()
+        notify_customer(self)
 
         self.save(update_fields=["status", "shipped_at"])
''']), {M: sub(SHIP_NEW, '"""\nfrom decimal', '"""\nimport logging\nfrom decimal')})

sc("diff_ambiguous_views", "ambiguous", "diff", {V: VIEWS},
   udiff(V, ['''@@ -1,3 +1,3 @@
     order = get_object_or_404(Order, pk=pk, customer__user=request.user)
-    if request.method != "POST":
+    if request.method not in ("POST", "PUT"):
         return JsonResponse({"error": "method not allowed"}, status=405)
''']), "refuse")

sc("diff_stale_text", "stale_text", "diff", {V: VIEWS},
   udiff(V, ['''@@ -9,3 +9,3 @@
 def order_list(request):
-    orders = Order.objects.filter(user=request.user)
+    orders = Order.objects.filter(user=request.user).select_related("customer")
     return render(request, "orders/list.html", {"orders": orders})
''']), "refuse")

sc("diff_wrong_twin_ship_vs_paid", "wrong_twin", "diff", {M: MODELS},
   udiff(M, ['''@@ -58,4 +58,5 @@
     def mark_paid(self):
         self.status = "paid"
         self.shipped_at = timezone.now()
+        notify_customer(self)
''']), "refuse")

sc("diff_indent_shifted", "indent_shifted", "diff", {M: MODELS},
   udiff(M, ['''@@ -69,4 +69,6 @@
     total = Decimal("0.00")
     for line in self.lines.all():
+        if line.cancelled:
+            continue
         total += line.price * line.quantity
     self.total = total
''']), {M: sub(MODELS, '''        for line in self.lines.all():
            total += line.price''', '''        for line in self.lines.all():
            if line.cancelled:
                continue
            total += line.price''')})

sc("diff_tabs_vs_spaces", "tabs_vs_spaces", "diff", {"server/server.go": TABS},
   udiff("server/server.go", ['''@@ -14,4 +14,5 @@
     srv := &http.Server{
         Addr:         s.addr,
+        IdleTimeout:  s.timeout,
         ReadTimeout:  s.timeout,
''']), {"server/server.go": sub(TABS, "\t\tReadTimeout:", "\t\tIdleTimeout:  s.timeout,\n\t\tReadTimeout:")})

sc("diff_curly", "curly_punctuation", "diff", {M: MODELS},
   udiff(M, ['''@@ -25,2 +25,3 @@
         ordering = [\u201cuser__last_name\u201d]
         verbose_name = \u201ccustomer\u201d
+        verbose_name_plural = "customers"
''']), {M: sub(MODELS, '        verbose_name = "customer"\n',
              '        verbose_name = "customer"\n        verbose_name_plural = "customers"\n')})

sc("diff_intended_reindent", "indent_shifted", "diff", {"srv/bad.py": "def f(x):\n    if x:\n        return 1\n        return 2\n"},
   udiff("srv/bad.py", ['''@@ -2,3 +2,3 @@
     if x:
         return 1
-        return 2
+    return 2
''']), {"srv/bad.py": "def f(x):\n    if x:\n        return 1\n    return 2\n"})

sc("diff_yaml", "clean", "diff", {"docker-compose.yml": YAML},
   udiff("docker-compose.yml", ['''@@ -8,5 +8,5 @@
   worker:
     image: app:latest
-    command: celery -A app worker
+    command: celery -A app worker -l info
     environment:
       DEBUG: "0"
''']), {"docker-compose.yml": sub(YAML, "worker\n    environment", "worker -l info\n    environment")})

sc("diff_leading_blank", "leading_blank_line", "diff", {M: MODELS},
   udiff(M, ['''@@ -67,3 +67,4 @@
 
     def recalculate(self):
+        """Sum the lines again."""
         total = Decimal("0.00")
''']), {M: sub(MODELS, '    def recalculate(self):\n', '    def recalculate(self):\n        """Sum the lines again."""\n')})

sc("diff_two_files", "clean", "diff", {M: MODELS, V: VIEWS},
   udiff(M, [f"@@ -{SHIP_LINE},4 +{SHIP_LINE},5 @@\n" + SHIP_HUNK]) + udiff(V, ['''@@ -1,3 +1,4 @@
 from django.contrib.auth.decorators import login_required
 from django.http import JsonResponse
+from django.views.decorators.http import require_POST
 from django.shortcuts import get_object_or_404, render
''']), {M: SHIP_NEW, V: sub(VIEWS, "from django.http import JsonResponse\n",
                           "from django.http import JsonResponse\nfrom django.views.decorators.http import require_POST\n")})

# ---------------------------------------------------------------- codex
def codex(body):
    return "*** Begin Patch\n" + body + "*** End Patch\n"


sc("codex_clean", "clean", "codex", {M: MODELS},
   codex(f"*** Update File: {M}\n@@\n" + SHIP_HUNK), {M: SHIP_NEW})

sc("codex_def_anchor", "clean", "codex", {M: MODELS},
   codex(f"*** Update File: {M}\n@@ def mark_shipped(self):\n" + SHIP_HUNK), {M: SHIP_NEW})

sc("codex_class_then_def_anchor", "clean", "codex", {C: CONTROLLER},
   codex(f'''*** Update File: {C}
@@ class ProductController extends AbstractController
@@     public function delete(int $id): JsonResponse
         $product = $this->products->find($id);
         if (null === $product) {{
-            return $this->json(['error' => 'not found'], 404);
+            throw $this->createNotFoundException();
         }}
'''), {C: sub(CONTROLLER, '''        $this->em->remove''', '''        $this->em->remove''') and
         CONTROLLER[: CONTROLLER.index("public function delete")] + CONTROLLER[CONTROLLER.index("public function delete"):].replace(
             "            return $this->json(['error' => 'not found'], 404);", "            throw $this->createNotFoundException();", 1)})

sc("codex_anchor_only_one_context_side", "clean", "codex", {C: CONTROLLER},
   codex(f'''*** Update File: {C}
@@ public function show(int $id): JsonResponse
         if (null === $product) {{
-            return $this->json(['error' => 'not found'], 404);
+            throw $this->createNotFoundException();
'''), {C: CONTROLLER.replace("            return $this->json(['error' => 'not found'], 404);",
                              "            throw $this->createNotFoundException();", 1)})

sc("codex_trailing_blank_context_dropped", "clean", "codex", {M: MODELS},
   codex(f'''*** Update File: {M}
@@ def mark_shipped(self):
         self.status = "shipped"
         self.shipped_at = timezone.now()
+        notify_customer(self)
'''), {M: SHIP_NEW})

sc("codex_blank_context_no_space", "clean", "codex", {M: MODELS},
   codex(f"*** Update File: {M}\n@@\n" + SHIP_HUNK.replace("\n \n", "\n\n")), {M: SHIP_NEW})

sc("codex_dot_slash_path", "clean", "codex", {M: MODELS},
   codex(f"*** Update File: ./{M}\n@@\n" + SHIP_HUNK), {M: SHIP_NEW})

sc("codex_indent_shifted", "indent_shifted", "codex", {M: MODELS},
   codex(f'''*** Update File: {M}
@@ def recalculate(self):
     total = Decimal("0.00")
     for line in self.lines.all():
+        if line.cancelled:
+            continue
         total += line.price * line.quantity
'''), {M: sub(MODELS, '''        for line in self.lines.all():
            total += line.price''', '''        for line in self.lines.all():
            if line.cancelled:
                continue
            total += line.price''')})

sc("codex_crlf", "crlf_file_lf_edit", "codex", {C: crlf(CONTROLLER)},
   codex(f'''*** Update File: {C}
@@
         $this->em->remove($product);
         $this->em->flush();
+        $this->logger->info('deleted', ['id' => $id]);
'''), {C: crlf(sub(CONTROLLER, "        $this->em->flush();\n",
                    "        $this->em->flush();\n        $this->logger->info('deleted', ['id' => $id]);\n"))})

sc("codex_tabs", "tabs_vs_spaces", "codex", {"server/server.go": TABS},
   codex('''*** Update File: server/server.go
@@ func (s *Server) Start() error {
         Addr:         s.addr,
+        IdleTimeout:  s.timeout,
         ReadTimeout:  s.timeout,
'''), {"server/server.go": sub(TABS, "\t\tReadTimeout:", "\t\tIdleTimeout:  s.timeout,\n\t\tReadTimeout:")})

sc("codex_trailing_ws", "trailing_ws_lost", "codex", {M: MODELS},
   codex(f'''*** Update File: {M}
@@ class Customer(TimeStampedModel):
-    phone = models.CharField(max_length=32, blank=True)
+    phone = models.CharField(max_length=64, blank=True)
     vip = models.BooleanField(default=False)
'''), {M: sub(MODELS, "    phone = models.CharField(max_length=32, blank=True)  \n",
              "    phone = models.CharField(max_length=64, blank=True)\n")})

sc("codex_curly", "curly_punctuation", "codex", {M: MODELS},
   codex(f'''*** Update File: {M}
@@
         ordering = [\u201cuser__last_name\u201d]
-        verbose_name = \u201ccustomer\u201d
+        verbose_name = "client"
'''), {M: sub(MODELS, '        verbose_name = "customer"\n', '        verbose_name = "client"\n')})

sc("codex_already_applied", "already_applied", "codex", {M: SHIP_NEW},
   codex(f"*** Update File: {M}\n@@ def mark_shipped(self):\n" + SHIP_HUNK), {})

sc("codex_ambiguous", "ambiguous", "codex", {C: CONTROLLER},
   codex(f'''*** Update File: {C}
@@
         if (null === $product) {{
-            return $this->json(['error' => 'not found'], 404);
+            throw $this->createNotFoundException();
         }}
'''), "refuse")

sc("codex_anchor_disambiguates_twin", "ambiguous", "codex", {V: VIEWS},
   codex(f'''*** Update File: {V}
@@ def order_ship(request, pk):
     order = get_object_or_404(Order, pk=pk, customer__user=request.user)
-    if request.method != "POST":
+    if request.method not in ("POST", "PUT"):
'''), {V: VIEWS[: VIEWS.index("def order_ship")] + VIEWS[VIEWS.index("def order_ship"):].replace(
       'if request.method != "POST":', 'if request.method not in ("POST", "PUT"):', 1)})

sc("codex_stale", "stale_text", "codex", {V: VIEWS},
   codex(f'''*** Update File: {V}
@@ def order_list(request):
-    orders = Order.objects.filter(user=request.user)
+    orders = Order.objects.filter(user=request.user).select_related("customer")
'''), "refuse")

sc("codex_wrong_twin", "wrong_twin", "codex", {M: MODELS},
   codex(f'''*** Update File: {M}
@@
     def mark_paid(self):
         self.status = "paid"
-        self.shipped_at = timezone.now()
+        self.shipped_at = None
'''), "refuse")

sc("codex_last_line_no_newline", "clean", "codex", {V: VIEWS},
   codex(f'''*** Update File: {V}
@@ def order_ship(request, pk):
     order.mark_shipped()
-    return JsonResponse({{"status": order.status}})
+    return JsonResponse({{"status": order.status, "id": order.pk}})
'''), {V: VIEWS[: VIEWS.rindex("\n")] + '\n    return JsonResponse({"status": order.status, "id": order.pk})'})

sc("codex_intended_reindent", "indent_shifted", "codex", {"srv/bad.py": "def f(x):\n    if x:\n        return 1\n        return 2\n"},
   codex('''*** Update File: srv/bad.py
@@ def f(x):
     if x:
         return 1
-        return 2
+    return 2
'''), {"srv/bad.py": "def f(x):\n    if x:\n        return 1\n    return 2\n"})

sc("codex_fenced", "clean", "codex", {M: MODELS},
   "```\n" + codex(f"*** Update File: {M}\n@@ def mark_shipped(self):\n" + SHIP_HUNK) + "```\n", {M: SHIP_NEW})

sc("codex_leading_blank", "leading_blank_line", "codex", {M: MODELS},
   codex(f'''*** Update File: {M}
@@

     def recalculate(self):
+        """Sum the lines again."""
         total = Decimal("0.00")
'''), {M: sub(MODELS, '    def recalculate(self):\n', '    def recalculate(self):\n        """Sum the lines again."""\n')})

# ---------------------------------------------------------------- batch 2: sequences, orders, combos
sc("blocks_second_searches_first_result", "clean", "blocks", {M: MODELS},
   block(M, '''    def mark_paid(self):
        self.status = "paid"
''', '''    def mark_paid(self, by=None):
        self.status = "paid"
''') + block(M, '''    def mark_paid(self, by=None):
        self.status = "paid"
        self.paid_at = timezone.now()
''', '''    def mark_paid(self, by=None):
        self.status = "paid"
        self.paid_by = by
        self.paid_at = timezone.now()
'''), {M: sub(MODELS, '''    def mark_paid(self):
        self.status = "paid"
''', '''    def mark_paid(self, by=None):
        self.status = "paid"
        self.paid_by = by
''')})

sc("blocks_shifted_with_dedent", "indent_shifted", "blocks", {M: MODELS},
   block(M, '''for line in self.lines.all():
    total += line.price * line.quantity
self.total = total
''', '''for line in self.lines.all():
    total += line.price * line.quantity
    self.total = total
'''), {M: sub(MODELS, '''            total += line.price * line.quantity
        self.total = total
''', '''            total += line.price * line.quantity
            self.total = total
''')})

sc("blocks_curly_in_replace_too", "curly_punctuation", "blocks", {M: MODELS},
   block(M, '''        verbose_name = \u201ccustomer\u201d
''', '''        verbose_name = \u201cclient\u201d
'''), {M: sub(MODELS, '        verbose_name = "customer"\n', '        verbose_name = "client"\n')})

sc("blocks_header_hashes", "clean", "blocks", {M: MODELS},
   "### " + block(M, '''        self.paid_at = timezone.now()
''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
'''), {M: MARK_PAID_NEW})

sc("blocks_header_colon", "clean", "blocks", {M: MODELS},
   block(M, '''        self.paid_at = timezone.now()
''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
''', head=f"{M}:"), {M: MARK_PAID_NEW})

sc("blocks_filename_inside_fence", "clean", "blocks", {M: MODELS},
   f"```python\n{M}\n<<<<<<< SEARCH\n        self.paid_at = timezone.now()\n=======\n        self.paid_at = timezone.now()\n        logger.info(\"order %s paid\", self.pk)\n>>>>>>> REPLACE\n```\n",
   {M: MARK_PAID_NEW})

sc("blocks_tab_file_shifted_and_trailing", "tabs_vs_spaces", "blocks", {"server/server.go": TABS.replace("\treturn srv", "\treturn srv")},
   block("server/server.go", '''srv := &http.Server{
    Addr:         s.addr,
    ReadTimeout:  s.timeout,
    WriteTimeout: s.timeout,
}
''', '''srv := &http.Server{
    Addr:         s.addr,
    ReadTimeout:  s.timeout,
    WriteTimeout: s.timeout,
    IdleTimeout:  2 * s.timeout,
}
''', fence="go"), {"server/server.go": sub(TABS, "\t\tWriteTimeout: s.timeout,\n", "\t\tWriteTimeout: s.timeout,\n\t\tIdleTimeout:  2 * s.timeout,\n")})

TRAILING = "def total(items):  \n    s = 0\t\n    for i in items:\n        s += i\n    return s\n"
sc("blocks_strip_trailing_ws_on_purpose", "trailing_ws_lost", "blocks", {"calc.py": TRAILING},
   block("calc.py", "def total(items):  \n    s = 0\t\n", "def total(items):\n    s = 0\n"),
   {"calc.py": "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"})

sc("blocks_crlf_reply_crlf_file", "crlf_file_lf_edit", "blocks", {C: crlf(CONTROLLER)},
   crlf(block(C, '''        $this->em->flush();
''', '''        $this->em->flush();
        $this->logger->info('deleted', ['id' => $id]);
''', fence="php")), {C: crlf(sub(CONTROLLER, "        $this->em->flush();\n",
                                  "        $this->em->flush();\n        $this->logger->info('deleted', ['id' => $id]);\n"))})

sc("blocks_delete_method", "clean", "blocks", {V: VIEWS},
   block(V, '''@login_required
def order_detail(request, pk):
    order = get_object_or_404(Order, pk=pk, customer__user=request.user)
    return render(request, "orders/detail.html", {"order": order})


''', ""), {V: sub(VIEWS, '''@login_required
def order_detail(request, pk):
    order = get_object_or_404(Order, pk=pk, customer__user=request.user)
    return render(request, "orders/detail.html", {"order": order})


''', "")})

sc("blocks_wrong_file_path", "stale_text", "blocks", {M: MODELS},
   block("orders/models.py", '''        self.paid_at = timezone.now()
''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
'''), "refuse")

sc("blocks_partially_applied_stale_second", "stale_text", "blocks", {M: MODELS},
   block(M, '''        self.paid_at = timezone.now()
''', '''        self.paid_at = timezone.now()
        logger.info("order %s paid", self.pk)
''') + block(M, '''        self.refunded_at = timezone.now()
''', '''        self.refunded_at = timezone.now()
        logger.info("order %s refunded", self.pk)
'''), "refuse")

sc("blocks_search_with_elided_middle_no_marker_in_replace", "elision", "blocks", {C: CONTROLLER},
   block(C, '''    public function delete(int $id): JsonResponse
    {
        // ...
        return $this->json(null, 204);
''', '''    public function delete(int $id): JsonResponse
    {
        // ...
        return $this->json(null, 200);
''', fence="php"), {C: sub(CONTROLLER, "return $this->json(null, 204);", "return $this->json(null, 200);")})

sc("blocks_elision_marker_count_differs", "elision", "blocks", {C: CONTROLLER},
   block(C, '''    public function delete(int $id): JsonResponse
    {
        // ...
        return $this->json(null, 204);
    }
''', '''    public function delete(int $id): JsonResponse
    {
        return $this->json(null, 200);
    }
''', fence="php"), "refuse")

sc("diff_hunks_out_of_order", "stale_line_numbers", "diff", {M: MODELS},
   udiff(M, ['''@@ -60,4 +60,5 @@
         self.status = "shipped"
         self.shipped_at = timezone.now()
+        notify_customer(self)
 
         self.save(update_fields=["status", "shipped_at"])
''', '''@@ -1,4 +1,5 @@
 """Models for the orders app."""
+import logging
 from decimal import Decimal
 
 from django.conf import settings
''']), {M: sub(SHIP_NEW, '"""\nfrom decimal', '"""\nimport logging\nfrom decimal')})

sc("diff_duplicate_exact_numbers_right", "ambiguous", "diff", {V: VIEWS},
   udiff(V, ['''@@ -31,3 +31,3 @@
     if request.method != "POST":
         return JsonResponse({"error": "method not allowed"}, status=405)
-    order.mark_shipped()
+    order.mark_shipped(notify=True)
''']), {V: sub(VIEWS, "order.mark_shipped()", "order.mark_shipped(notify=True)")})

sc("diff_trailing_ws_and_reindent", "indent_shifted", "diff", {"calc.py": TRAILING},
   udiff("calc.py", ['''@@ -1,5 +1,5 @@
 def total(items):
     s = 0
     for i in items:
-        s += i
-    return s
+            s += i
+    return s
''']), {"calc.py": "def total(items):  \n    s = 0\t\n    for i in items:\n            s += i\n    return s\n"})

sc("diff_remove_trailing_ws_on_purpose", "trailing_ws_lost", "diff", {"calc.py": TRAILING},
   udiff("calc.py", ['@@ -1,2 +1,2 @@\n-def total(items):  \n-    s = 0\t\n+def total(items):\n+    s = 0\n']),
   {"calc.py": "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"})

sc("diff_add_final_newline", "clean", "diff", {V: VIEWS},
   udiff(V, ['''@@ -34,1 +34,1 @@
-    return JsonResponse({"status": order.status})
\\ No newline at end of file
+    return JsonResponse({"status": order.status})
''']), {V: VIEWS + "\n"})

sc("diff_new_file_in_reply", "clean", "diff", {M: MODELS},
   "--- /dev/null\n+++ b/app/signals.py\n@@ -0,0 +1,2 @@\n+from django.dispatch import receiver\n+from .models import Order\n",
   {"app/signals.py": "from django.dispatch import receiver\nfrom .models import Order\n"})

sc("diff_wrong_path", "stale_text", "diff", {M: MODELS},
   udiff("models.py", [f"@@ -{SHIP_LINE},4 +{SHIP_LINE},5 @@\n" + SHIP_HUNK]), "refuse")

sc("diff_context_missing_middle_line", "stale_text", "diff", {M: MODELS},
   udiff(M, ['''@@ -58,3 +58,4 @@
     def mark_paid(self):
         self.status = "paid"
+        self.paid_by = None
         self.save(update_fields=["status", "paid_at"])
''']), "refuse")

sc("diff_yaml_shifted_indent", "indent_shifted", "diff", {"docker-compose.yml": YAML},
   udiff("docker-compose.yml", ['''@@ -8,3 +8,3 @@
 worker:
   image: app:latest
-  command: celery -A app worker
+  command: celery -A app worker -l info
''']), {"docker-compose.yml": sub(YAML, "worker\n    environment", "worker -l info\n    environment")})

sc("codex_chunks_out_of_order", "stale_line_numbers", "codex", {M: MODELS},
   codex(f'''*** Update File: {M}
@@ def mark_shipped(self):
         self.shipped_at = timezone.now()
+        notify_customer(self)
@@
 from decimal import Decimal
+import logging
'''), {M: sub(SHIP_NEW, "from decimal import Decimal\n", "from decimal import Decimal\nimport logging\n")})

sc("codex_two_anchored_chunks_same_shape", "clean", "codex", {V: VIEWS},
   codex(f'''*** Update File: {V}
@@ def order_pay(request, pk):
-    if request.method != "POST":
+    if request.method not in ("POST", "PATCH"):
@@ def order_ship(request, pk):
-    if request.method != "POST":
+    if request.method not in ("POST", "PUT"):
'''), {V: VIEWS.replace('if request.method != "POST":', 'if request.method not in ("POST", "PATCH"):', 1)
       .replace('if request.method != "POST":', 'if request.method not in ("POST", "PUT"):', 1)})

sc("codex_anchor_missing_stale", "stale_text", "codex", {V: VIEWS},
   codex(f'''*** Update File: {V}
@@ def order_refund(request, pk):
-    if request.method != "POST":
+    if request.method not in ("POST", "PUT"):
'''), "refuse")

sc("codex_no_begin_end", "clean", "codex", {M: MODELS},
   f"*** Update File: {M}\n@@ def mark_shipped(self):\n" + SHIP_HUNK, {M: SHIP_NEW})

sc("codex_add_file", "clean", "codex", {M: MODELS},
   codex("*** Add File: app/signals.py\n+from django.dispatch import receiver\n"),
   {"app/signals.py": "from django.dispatch import receiver\n"})

sc("codex_php_class_anchor_delete_method_body", "clean", "codex", {C: CONTROLLER},
   codex(f'''*** Update File: {C}
@@     public function delete(int $id): JsonResponse
         $this->em->remove($product);
         $this->em->flush();
 
-        return $this->json(null, 204);
+        return new JsonResponse(null, 204);
'''), {C: sub(CONTROLLER, "return $this->json(null, 204);", "return new JsonResponse(null, 204);")})

# ---------------------------------------------------------------- batch 3: wrong-byte hunting
sc("blocks_shifted_search_and_wrapped_replace", "indent_shifted", "blocks", {M: MODELS},
   block(M, '''self.total = total
self.save(update_fields=["total"])
''', '''if total != self.total:
    self.total = total
    self.save(update_fields=["total"])
'''), {M: sub(MODELS, '''        self.total = total
        self.save(update_fields=["total"])
''', '''        if total != self.total:
            self.total = total
            self.save(update_fields=["total"])
''')})

sc("codex_all_indent_lost", "indent_shifted", "codex", {M: MODELS},
   codex(f'''*** Update File: {M}
@@ def recalculate(self):
 self.total = total
-self.save(update_fields=["total"])
+self.save(update_fields=["total", "updated_at"])
'''), {M: sub(MODELS, 'self.save(update_fields=["total"])', 'self.save(update_fields=["total", "updated_at"])')})

sc("diff_crlf_diff_on_lf_file", "crlf_file_lf_edit", "diff", {M: MODELS},
   crlf(udiff(M, [f"@@ -{SHIP_LINE},4 +{SHIP_LINE},5 @@\n" + SHIP_HUNK])), {M: SHIP_NEW})

sc("diff_context_typo_stale", "stale_text", "diff", {M: MODELS},
   udiff(M, [f"@@ -{SHIP_LINE},4 +{SHIP_LINE},5 @@\n" + SHIP_HUNK.replace("timezone.now()", "timezone.now")]), "refuse")

BOM = "\ufeff" + "import os\n\n\ndef main():\n    print(os.getcwd())\n"
sc("blocks_bom_first_line", "clean", "blocks", {"tool.py": BOM},
   block("tool.py", "import os\n", "import os\nimport sys\n"),
   {"tool.py": "\ufeff" + "import os\nimport sys\n\n\ndef main():\n    print(os.getcwd())\n"})

sc("diff_bom_first_line", "clean", "diff", {"tool.py": BOM},
   udiff("tool.py", ["@@ -1,2 +1,3 @@\n import os\n+import sys\n \n"]),
   {"tool.py": "\ufeff" + "import os\nimport sys\n\n\ndef main():\n    print(os.getcwd())\n"})

sc("blocks_empty_search_existing_file_appends", "clean", "blocks", {M: MODELS},
   block(M, "", '''

class Refund(TimeStampedModel):
    order = models.ForeignKey(Order, on_delete=models.CASCADE)
'''), {M: MODELS + '''

class Refund(TimeStampedModel):
    order = models.ForeignKey(Order, on_delete=models.CASCADE)
'''})

sc("blocks_twin_methods_exact_unique_by_one_line", "ambiguous", "blocks", {M: MODELS},
   block(M, '''        self.status = "shipped"
        self.shipped_at = timezone.now()

        self.save(update_fields=["status", "shipped_at"])
''', '''        self.status = "shipped"
        self.shipped_at = timezone.now()
        self.save(update_fields=["status", "shipped_at"])
'''), {M: sub(MODELS, '''        self.shipped_at = timezone.now()

        self.save''', '''        self.shipped_at = timezone.now()
        self.save''')})

sc("blocks_remove_blank_line_in_function", "clean", "blocks", {M: MODELS},
   block(M, '''        self.paid_at = timezone.now()

        self.save(update_fields=["status", "paid_at"])
''', '''        self.paid_at = timezone.now()
        self.save(update_fields=["status", "paid_at"])
'''), {M: sub(MODELS, '''        self.paid_at = timezone.now()

        self.save''', '''        self.paid_at = timezone.now()
        self.save''')})

sc("blocks_search_blank_lines_collapsed", "stale_text", "blocks", {V: VIEWS},
   block(V, '''    return render(request, "orders/list.html", {"orders": orders})

@login_required
def order_detail(request, pk):
''', '''    return render(request, "orders/list.html", {"orders": orders})

@login_required
@require_GET
def order_detail(request, pk):
'''), "refuse")

sc("codex_ws_only_change_intended", "indent_shifted", "codex", {"srv/bad.py": "def f(x):\n    if x:\n        return 1\n        return 2\n"},
   codex('''*** Update File: srv/bad.py
@@
-        return 2
+    return 2
'''), {"srv/bad.py": "def f(x):\n    if x:\n        return 1\n    return 2\n"})

sc("blocks_ws_only_change_single_line", "indent_shifted", "blocks", {"srv/bad.py": "def f(x):\n    if x:\n        return 1\n        return 2\n"},
   block("srv/bad.py", "        return 2\n", "    return 2\n"),
   {"srv/bad.py": "def f(x):\n    if x:\n        return 1\n    return 2\n"})

sc("diff_tab_file_space_diff_add_nested", "tabs_vs_spaces", "diff", {"server/server.go": TABS},
   udiff("server/server.go", ['''@@ -19,3 +19,6 @@
 
     return srv.ListenAndServe()
+    if s.timeout == 0 {
+        return nil
+    }
 }
''']), {"server/server.go": sub(TABS, "\treturn srv.ListenAndServe()\n", "\treturn srv.ListenAndServe()\n\tif s.timeout == 0 {\n\t\treturn nil\n\t}\n")})

sc("blocks_yaml_twin_environment", "ambiguous", "blocks", {"docker-compose.yml": YAML},
   block("docker-compose.yml", '''    environment:
      DEBUG: "0"
''', '''    environment:
      DEBUG: "1"
''', fence="yaml"), "refuse")

sc("codex_yaml_anchor_twin", "ambiguous", "codex", {"docker-compose.yml": YAML},
   codex('''*** Update File: docker-compose.yml
@@   worker:
     environment:
-      DEBUG: "0"
+      DEBUG: "1"
'''), {"docker-compose.yml": YAML[: YAML.index("  worker:")] + YAML[YAML.index("  worker:"):].replace('DEBUG: "0"', 'DEBUG: "1"')})

sc("codex_yaml_anchor_web", "ambiguous", "codex", {"docker-compose.yml": YAML},
   codex('''*** Update File: docker-compose.yml
@@   web:
     environment:
-      DEBUG: "0"
+      DEBUG: "1"
'''), {"docker-compose.yml": YAML.replace('DEBUG: "0"', 'DEBUG: "1"', 1)})

# ---------------------------------------------------------------- batch 4: elision safety
sc("blocks_elision_piece_in_other_class", "elision", "blocks", {M: MODELS},
   block(M, '''class Order(TimeStampedModel):
    # ... existing code ...
    def __str__(self):
        return self.user.get_full_name()
''', '''class Order(TimeStampedModel):
    # ... existing code ...
    def __str__(self):
        return self.display_name
'''), "refuse")

sc("blocks_elision_twin_decided_by_kept_piece", "elision", "blocks", {V: VIEWS},
   block(V, '''def order_ship(request, pk):
    ...
        return JsonResponse({"error": "method not allowed"}, status=405)
''', '''def order_ship(request, pk):
    ...
        return JsonResponse({"error": "method not allowed"}, status=400)
'''), {V: VIEWS[: VIEWS.index("def order_ship")] + VIEWS[VIEWS.index("def order_ship"):].replace("status=405", "status=400")})

sc("blocks_elision_trailing_addition", "elision", "blocks", {M: MODELS},
   block(M, '''    def recalculate(self):
# ...
''', '''    def recalculate(self):
# ...
        logger.debug("recalculated")
'''), "refuse")

# ---------------------------------------------------------------- batch 5: already applied beside a twin
TWINS = '''def pay(order):
    order.check()
    order.status = "paid"
    order.save()


def ship(order):
    order.check()
    order.status = "paid"
    order.save()
'''
TWINS_DONE = TWINS.replace('order.status = "paid"', 'order.status = "done"', 1)
sc("diff_already_applied_beside_twin", "already_applied", "diff", {"flow.py": TWINS_DONE},
   udiff("flow.py", ['''@@ -1,4 +1,4 @@
 def pay(order):
     order.check()
-    order.status = "paid"
+    order.status = "done"
     order.save()
''']), {})

sc("diff_already_applied_beside_twin_no_def", "already_applied", "diff", {"flow.py": TWINS_DONE},
   udiff("flow.py", ['''@@ -2,3 +2,3 @@
     order.check()
-    order.status = "paid"
+    order.status = "done"
     order.save()
''']), {})

sc("blocks_already_applied_beside_twin", "already_applied", "blocks", {"flow.py": TWINS_DONE},
   block("flow.py", '''    order.check()
    order.status = "paid"
''', '''    order.check()
    order.status = "done"
'''), "refuse")

sc("codex_already_applied_beside_twin", "already_applied", "codex", {"flow.py": TWINS_DONE},
   codex('''*** Update File: flow.py
@@
     order.check()
-    order.status = "paid"
+    order.status = "done"
     order.save()
'''), "refuse")

sc("diff_twin_made_like_the_first_by_line_number", "clean", "diff", {"flow.py": TWINS_DONE},
   udiff("flow.py", ['''@@ -8,3 +8,3 @@
     order.check()
-    order.status = "paid"
+    order.status = "done"
     order.save()
''']), {"flow.py": TWINS_DONE.replace('order.status = "paid"', 'order.status = "done"')})

sc("codex_in_prose_reply", "clean", "codex", {M: MODELS},
   "I'll notify the customer on shipping:\n\n```\n" + codex(f"*** Update File: {M}\n@@ def mark_shipped(self):\n" + SHIP_HUNK)
   + "```\n\nThis calls `notify_customer` after the timestamp.\n", {M: SHIP_NEW})

PAD = "".join(f"\n\ndef helper_{i}():\n    return {i}\n" for i in range(10))
FAR = TWINS_DONE.replace("\n\ndef ship", PAD + "\n\ndef ship")
sc("diff_retry_far_from_its_line_number", "already_applied", "diff", {"flow.py": FAR},
   udiff("flow.py", ['''@@ -20,3 +20,3 @@
     order.check()
-    order.status = "paid"
+    order.status = "done"
     order.save()
''']), "refuse")
