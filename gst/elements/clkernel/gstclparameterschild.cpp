/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclparameterschild.hpp"

#include <map>
#include <mutex>

namespace clparams {

namespace {

/* What a child type serves: kept for the life of the process, as the type. */
struct TypeData {
  Params params;
  Access access;
};

struct Child {
  GstObject parent;
  GWeakRef element;   /* the child may outlive it in an application's hands */
};

struct ChildClass {
  GstObjectClass parent_class;
  const TypeData *data;
};

const TypeData *
data_of (GObject * object)
{
  return reinterpret_cast<ChildClass *> (G_OBJECT_GET_CLASS (object))->data;
}

void
child_set_property (GObject * object, guint id, const GValue * value, GParamSpec *)
{
  const TypeData *d = data_of (object);
  Param p = d->params[id - 1];
  switch (p.type) {
    case Type::FLOAT: p.value.f = g_value_get_float (value); break;
    case Type::INT: p.value.i = g_value_get_int (value); break;
    case Type::UINT: p.value.u = g_value_get_uint (value); break;
  }
  auto *element = static_cast<GstElement *> (
      g_weak_ref_get (&reinterpret_cast<Child *> (object)->element));
  if (element) {
    d->access.set (element, p);
    gst_object_unref (element);
  }
}

void
child_get_property (GObject * object, guint id, GValue * value, GParamSpec *)
{
  const TypeData *d = data_of (object);
  Param p = d->params[id - 1];
  auto *element = static_cast<GstElement *> (
      g_weak_ref_get (&reinterpret_cast<Child *> (object)->element));
  if (element) {
    d->access.get (element, &p);
    gst_object_unref (element);
  }
  switch (p.type) {
    case Type::FLOAT: g_value_set_float (value, p.value.f); break;
    case Type::INT: g_value_set_int (value, p.value.i); break;
    case Type::UINT: g_value_set_uint (value, p.value.u); break;
  }
}

void
child_finalize (GObject * object)
{
  g_weak_ref_clear (&reinterpret_cast<Child *> (object)->element);
  G_OBJECT_CLASS (g_type_class_peek_parent (G_OBJECT_GET_CLASS (object)))->finalize (object);
}

void
child_class_init (gpointer klass, gpointer class_data)
{
  auto *gobject_class = G_OBJECT_CLASS (klass);
  const auto *d = static_cast<const TypeData *> (class_data);
  reinterpret_cast<ChildClass *> (klass)->data = d;
  gobject_class->set_property = child_set_property;
  gobject_class->get_property = child_get_property;
  gobject_class->finalize = child_finalize;
  const auto flags = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING);
  for (size_t i = 0; i < d->params.size (); i++) {
    const Param &p = d->params[i];
    const char *name = p.name.c_str ();   /* lives as long as the type */
    if (!g_param_spec_is_valid_name (name))
      continue;
    GParamSpec *spec = nullptr;
    switch (p.type) {
      case Type::FLOAT:
        spec = g_param_spec_float (name, name, "A parameter of the code", -G_MAXFLOAT,
            G_MAXFLOAT, p.value.f, flags);
        break;
      case Type::INT:
        spec = g_param_spec_int (name, name, "A parameter of the code", G_MININT, G_MAXINT,
            p.value.i, flags);
        break;
      case Type::UINT:
        spec = g_param_spec_uint (name, name, "A parameter of the code", 0, G_MAXUINT,
            p.value.u, flags);
        break;
    }
    g_object_class_install_property (gobject_class, (guint) i + 1, spec);
  }
}

void
child_init (GTypeInstance * instance, gpointer)
{
  g_weak_ref_init (&reinterpret_cast<Child *> (instance)->element, nullptr);
}

/* One type per signature: GObject types cannot be dropped, and a pipeline
 * changes its parameters' names rarely. */
GType
type_for (const Params & params, const Access & access)
{
  static std::mutex lock;
  static std::map<std::string, GType> types;
  const std::string key = signature (params);
  std::lock_guard<std::mutex> guard (lock);
  auto it = types.find (key);
  if (it != types.end ())
    return it->second;
  const std::string name = "GstClKernelParameters" + std::to_string (types.size () + 1);
  GTypeInfo info = {};
  info.class_size = sizeof (ChildClass);
  info.class_init = child_class_init;
  info.class_data = new TypeData {params, access};
  info.instance_size = sizeof (Child);
  info.instance_init = child_init;
  const GType type = g_type_register_static (GST_TYPE_OBJECT, name.c_str (), &info,
      (GTypeFlags) 0);
  types[key] = type;
  return type;
}

}  // namespace

GstObject *
make_child (const Params & params, GstElement * element, const Access & access)
{
  if (params.empty ())
    return nullptr;
  auto *child = static_cast<GstObject *> (g_object_new (type_for (params, access), "name",
          "parameters", nullptr));
  g_weak_ref_set (&reinterpret_cast<Child *> (child)->element, element);
  return child;
}

}  // namespace clparams
